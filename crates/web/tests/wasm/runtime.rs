//! The page's runtime on the real page's elements (www/index.html's body): a message
//! dispatched while another is being applied is queued and applied after it, never dropped.

use posgeo_web::app::Msg;
use posgeo_web::dom::{elements::Elements, runtime};
use wasm_bindgen_test::*;

/// The page's body, as index.html has it, added to this test page (beside the test runner's
/// own elements, which must stay).
fn install_the_page() {
    let html = include_str!("../../../../www/index.html");
    let body = &html[html.find("<body>").unwrap() + 6..html.find("</body>").unwrap()];
    let document = web_sys::window().unwrap().document().unwrap();
    let page = document.create_element("div").unwrap();
    page.set_inner_html(body);
    document.body().unwrap().append_child(&page).unwrap();
    runtime::install(Elements::find().unwrap());
}

#[wasm_bindgen_test]
fn a_message_dispatched_during_another_is_queued_then_applied() {
    install_the_page();
    let raw = || runtime::with(|rt| rt.model.view.layers_raw).unwrap();
    assert!(!raw());
    // An event handled while the runtime is borrowed, as one fired from inside another's
    // handling would be.
    runtime::with(|_| runtime::dispatch(Msg::LayersRaw(true)));
    assert_eq!(runtime::queued(), 1, "queued, not dropped");
    assert!(!raw(), "not applied inside the other's handling");
    runtime::dispatch(Msg::StressRaw(true));
    assert_eq!(runtime::queued(), 0);
    assert!(raw(), "applied once the runtime is free");
    assert!(runtime::with(|rt| rt.model.view.stress_raw).unwrap());
}

/// Each message a worker receives is told by the property that names its kind, once; one that
/// none names is named by its properties.
#[wasm_bindgen_test]
fn a_workers_messages_are_told_apart_by_their_kind() {
    use posgeo_web::js::{inbound, message, Inbound, Key};
    use wasm_bindgen::JsValue;
    let bytes = || JsValue::from(js_sys::Uint8Array::new_with_length(3));
    assert_eq!(inbound(&message(&[(Key::Warm, JsValue::TRUE)]).into()), Inbound::Warm);
    assert_eq!(inbound(&js_sys::Array::of2(&bytes(), &JsValue::NULL).into()), Inbound::HelperJob);
    assert_eq!(inbound(&message(&[(Key::LearnSummarise, bytes())]).into()), Inbound::Summarise);
    let training = message(&[(Key::LearnRequest, JsValue::from_str("{}")), (Key::Bytes, bytes())]);
    assert_eq!(inbound(&training.into()), Inbound::Training);
    let analysis = message(&[(Key::Request, JsValue::from_str("{}")), (Key::Bytes, bytes())]);
    assert_eq!(inbound(&analysis.into()), Inbound::Analysis);
    let odd = message(&[(Key::Json, JsValue::from_str("x")), (Key::Header, JsValue::NULL)]);
    assert_eq!(inbound(&odd.into()), Inbound::Unknown("json, header".into()));
    assert_eq!(inbound(&message(&[(Key::Warm, JsValue::FALSE)]).into()), Inbound::Unknown("warm".into()));
}
