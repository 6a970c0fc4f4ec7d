//! The Web Worker's side (wasm32 only): receives a [`Request`] with its bytes, runs
//! [`protocol::run`] and posts [`Response`]s back as JSON strings — except `Done`, posted as
//! `{ json, metric, matrix, coords, coords_dim }` (Float64Arrays) so the n×n matrix and the
//! PMDS coordinates are transferred, not parsed.

use super::protocol::{self, Request, Response};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn post(scope: &DedicatedWorkerGlobalScope, r: &Response) {
    if let Ok(s) = serde_json::to_string(r) {
        scope.post_message(&JsValue::from_str(&s)).ok();
    }
}

/// Installs the message handler and announces `Ready`.
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let s2 = scope.clone();
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let data = e.data();
        let request = js_sys::Reflect::get(&data, &"request".into()).ok().and_then(|v| v.as_string());
        let bytes = js_sys::Reflect::get(&data, &"bytes".into())
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
            .map(|a| a.to_vec())
            .unwrap_or_default();
        let req: Request = match request.as_deref().map(serde_json::from_str) {
            Some(Ok(r)) => r,
            _ => {
                post(&s2, &Response::Error { id: 0, message: "malformed request".into() });
                return;
            }
        };
        let id = req.id;
        let result = protocol::run(&req, &bytes, &mut |r| post(&s2, &r));
        drop(bytes);
        match result {
            Ok(mut payload) => {
                // The n×n matrix travels as a transferred Float64Array, not as JSON text.
                let matrix = std::mem::take(&mut payload.report.matrix);
                let (name, rows) = matrix.into_iter().next().unwrap_or_default();
                let flat: Vec<f64> = rows.concat();
                // So do the PMDS coordinates (n × r_τ numbers).
                let coords = std::mem::take(&mut payload.coordinates);
                let coords_dim = coords.first().map_or(0, Vec::len);
                let coords_flat: Vec<f64> = coords.concat();
                let json =
                    serde_json::to_string(&Response::Done { id, payload: Box::new(payload) }).unwrap_or_default();
                let msg = js_sys::Object::new();
                let array = js_sys::Float64Array::from(&flat[..]);
                let coords_array = js_sys::Float64Array::from(&coords_flat[..]);
                js_sys::Reflect::set(&msg, &"json".into(), &JsValue::from_str(&json)).ok();
                js_sys::Reflect::set(&msg, &"matrix".into(), &array).ok();
                js_sys::Reflect::set(&msg, &"metric".into(), &JsValue::from_str(&name)).ok();
                js_sys::Reflect::set(&msg, &"coords".into(), &coords_array).ok();
                js_sys::Reflect::set(&msg, &"coords_dim".into(), &JsValue::from_f64(coords_dim as f64)).ok();
                let transfer = js_sys::Array::of2(&array.buffer(), &coords_array.buffer());
                s2.post_message_with_transfer(&msg, &transfer).ok();
            }
            Err(e) => post(&s2, &Response::Error { id, message: e.to_string() }),
        }
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&scope, &Response::Ready);
}
