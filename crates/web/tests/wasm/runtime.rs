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
