//! The helper messages' way through the browser (wasm32 only): a [`Job`] or [`Answer`] as
//! postcard bytes in one `Uint8Array`, first in a JS array whose other items are what
//! travels beside a job ([`crate::protocol::helper`]). The worker posts jobs ([`post_job`])
//! and reads answers ([`answer_of`]); a helper reads jobs and posts answers ([`serve`], which
//! hands the job to [`Helper::serve`]). No message key is probed: a helper message is an array.

use crate::protocol::helper::{decode, encode, Answer, Beside, Helper, Job};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, Worker};

thread_local! {
    /// A helper's state between jobs (its SMACOF share, its model).
    static HELPER: RefCell<Helper> = RefCell::new(Helper::default());
}

/// Posts `job` to helper `w`, with `beside` after it and `transfer`'s buffers moved.
pub(crate) fn post_job(w: &Worker, job: &Job, beside: &[JsValue], transfer: &[JsValue]) -> Result<(), String> {
    let bytes = js_sys::Uint8Array::from(&encode(job)?[..]);
    let msg = js_sys::Array::of1(&bytes);
    beside.iter().for_each(|b| {
        msg.push(b);
    });
    let moved = js_sys::Array::of1(&bytes.buffer());
    transfer.iter().for_each(|t| {
        moved.push(t);
    });
    w.post_message_with_transfer(&msg, &moved).map_err(|e| format!("a helper could not be sent its job: {e:?}"))
}

/// A helper's answer from a message's data (`null`: the helper stopped on an error).
pub(crate) fn answer_of(data: &JsValue) -> Answer {
    if data.is_null() {
        return Answer::Failed { message: "a helper worker stopped on an error".into() };
    }
    match data.dyn_ref::<js_sys::Array>().map(|a| a.get(0)).and_then(|b| b.dyn_into::<js_sys::Uint8Array>().ok()) {
        Some(bytes) => decode(&bytes.to_vec()).unwrap_or_else(|message| Answer::Failed { message }),
        None => Answer::Failed { message: "a helper's answer is not a helper message".into() },
    }
}

/// The answer a helper's reply future gives ([`super::helpers::next_message`]).
pub(crate) async fn reply(future: wasm_bindgen_futures::JsFuture) -> Answer {
    match future.await {
        Ok(data) => answer_of(&data),
        Err(e) => Answer::Failed { message: format!("no answer from a helper worker: {e:?}") },
    }
}

/// Posts an answer (its bytes transferred). A helper whose answer cannot be written posts
/// that failure instead.
fn post_answer(scope: &DedicatedWorkerGlobalScope, answer: &Answer) {
    let bytes = encode(answer).or_else(|message| encode(&Answer::Failed { message }));
    let Ok(bytes) = bytes else { return }; // a Failed with a message always encodes
    let arr = js_sys::Uint8Array::from(&bytes[..]);
    // Posting fails only when the answer cannot be cloned, which a byte array always can; should
    // it fail, the helper throws, and its worker's `onerror` takes the job back.
    if let Err(e) = scope.post_message_with_transfer(&js_sys::Array::of1(&arr), &js_sys::Array::of1(&arr.buffer())) {
        wasm_bindgen::throw_str(&format!("a helper could not post its answer ({})", crate::js::describe(&e)));
    }
}

/// What travels beside a job, as it arrived (the message's items after the job).
struct JsBeside<'a> {
    items: js_sys::Array,
    scope: &'a DedicatedWorkerGlobalScope,
}

impl JsBeside<'_> {
    fn item(&self, i: usize) -> JsValue {
        self.items.get(i as u32 + 1)
    }
    fn missing(i: usize, what: &str) -> String {
        format!("item {i} beside the job is not {what}")
    }
}

impl Beside for JsBeside<'_> {
    fn len(&self, i: usize) -> Option<usize> {
        let v = self.item(i);
        let len = if let Some(a) = v.dyn_ref::<js_sys::Float64Array>() {
            a.length()
        } else if let Some(a) = v.dyn_ref::<js_sys::Uint32Array>() {
            a.length()
        } else {
            v.dyn_ref::<js_sys::Uint8Array>()?.length()
        };
        Some(len as usize)
    }

    fn f64s_into(&self, i: usize, at: usize, out: &mut [f64]) -> Result<(), String> {
        let a = self.item(i).dyn_into::<js_sys::Float64Array>().map_err(|_| Self::missing(i, "f64s"))?;
        if at + out.len() > a.length() as usize {
            return Err(format!("item {i} beside the job is too short"));
        }
        a.subarray(at as u32, (at + out.len()) as u32).copy_to(out);
        Ok(())
    }

    fn u32s(&self, i: usize) -> Result<Vec<u32>, String> {
        let a = self.item(i).dyn_into::<js_sys::Uint32Array>().map_err(|_| Self::missing(i, "u32s"))?;
        Ok(a.to_vec())
    }

    fn bytes(&self, i: usize) -> Result<Vec<u8>, String> {
        let a = self.item(i).dyn_into::<js_sys::Uint8Array>().map_err(|_| Self::missing(i, "bytes"))?;
        Ok(a.to_vec())
    }

    fn identity(&self, i: usize) -> Result<(usize, u64), String> {
        let a = self.item(i).dyn_into::<js_sys::Uint8Array>().map_err(|_| Self::missing(i, "bytes"))?;
        Ok(crate::protocol::helper::identity(a.length() as usize, |k| a.get_index(k as u32)))
    }

    fn file_from(&self, i: usize, from: u64) -> Result<Box<dyn std::io::Read + '_>, String> {
        let file = self.item(i).dyn_into::<web_sys::Blob>().map_err(|_| Self::missing(i, "a file"))?;
        let blob = file.slice_with_f64_and_f64(from as f64, file.size()).map_err(|e| format!("slice: {e:?}"))?;
        let reader = super::worker::BlobReader::new(blob).ok_or("no FileReaderSync in this worker")?;
        Ok(Box::new(reader))
    }

    fn post(&self, answer: &Answer) {
        post_answer(self.scope, answer);
    }
}

/// The helper's side: a helper message's job ([`crate::js::Inbound::HelperJob`]) done and
/// answered.
pub fn serve(scope: &DedicatedWorkerGlobalScope, data: &JsValue) {
    let items: js_sys::Array = data.clone().unchecked_into();
    let bytes: js_sys::Uint8Array = items.get(0).unchecked_into();
    let answer = match decode::<Job>(&bytes.to_vec()) {
        Ok(job) => {
            let beside = JsBeside { items: items.clone(), scope };
            HELPER.with(|h| h.borrow_mut().serve(job, &beside))
        }
        Err(message) => Some(Answer::Failed { message }),
    };
    if let Some(answer) = answer {
        post_answer(scope, &answer);
    }
}
