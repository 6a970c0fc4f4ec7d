//! **Where Rust reads and writes JavaScript objects by property name, and nowhere else.** The
//! page and its workers exchange plain objects (`{ request, bytes, file, … }`) whose payloads
//! are typed (JSON or postcard: [`crate::protocol`], [`crate::protocol::jobs`]); their
//! property names are the [`Key`]s, each spelled once, here. The few browser objects read by
//! property — a worker's `location.href`, a fetch response's stream, `navigator.serviceWorker`
//! — are read here too. `crates/bench/tests/layout.rs` checks that no other file calls
//! `js_sys::Reflect`.

use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A property of the messages between the page and its workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// Page → worker: the analysis request (JSON text).
    Request,
    /// Page → worker: the pasted corpus (bytes).
    Bytes,
    /// Page → worker: the uploaded corpus file (a `Blob`, read in slices).
    File,
    /// Page → worker: the learned table's file (bytes).
    LearnedBytes,
    /// Page → worker: the tokenizer file (bytes).
    TokenizerBytes,
    /// Page → worker: the model's files (bytes).
    ModelBytes,
    /// Page → worker: fault injection for the end-to-end tests (`true`).
    Trap,
    /// Page → worker: fault injection, a value no worker can receive (a function), so that the
    /// post throws.
    Unpostable,
    /// Page → worker: start the helper workers now (`true`).
    Warm,
    /// Worker → page: the answer (JSON text) beside its bulky numbers.
    Json,
    /// Worker → page: the bulky numbers' header (JSON text).
    Header,
    /// Worker → page: the distance matrix (`Float64Array`, n×n).
    Matrix,
    /// Worker → page: the encodings' coordinates (`Float64Array`).
    Coords,
    /// Worker → page: the Shepard diagrams' points (`Float32Array`).
    Shepard,
    /// Page → training worker: the training request (JSON text).
    LearnRequest,
    /// Page → a training worker: every worker's runs to summarise (postcard bytes).
    LearnSummarise,
    /// Training worker → page: an answer (postcard bytes).
    Learn,
}

impl Key {
    /// The property's name.
    pub fn name(self) -> &'static str {
        match self {
            Key::Request => "request",
            Key::Bytes => "bytes",
            Key::File => "file",
            Key::LearnedBytes => "learned_bytes",
            Key::TokenizerBytes => "tokenizer_bytes",
            Key::ModelBytes => "model_bytes",
            Key::Trap => "trap",
            Key::Unpostable => "unpostable",
            Key::Warm => "warm",
            Key::Json => "json",
            Key::Header => "header",
            Key::Matrix => "matrix",
            Key::Coords => "coords",
            Key::Shepard => "shepard",
            Key::LearnRequest => "learn_request",
            Key::LearnSummarise => "learn_summarise",
            Key::Learn => "learn",
        }
    }
}

/// `name` of `obj`; none when absent or undefined.
fn property(obj: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(obj, &JsValue::from_str(name)).ok().filter(|v| !v.is_undefined())
}

/// `key` of a message; none when absent.
pub fn get(msg: &JsValue, key: Key) -> Option<JsValue> {
    property(msg, key.name())
}

/// `key` of a message as a typed value (`Uint8Array`, `Blob`, …); none when absent or of
/// another type.
pub fn typed<T: JsCast>(msg: &JsValue, key: Key) -> Option<T> {
    get(msg, key)?.dyn_into().ok()
}

/// `key` of a message as text.
pub fn text(msg: &JsValue, key: Key) -> Option<String> {
    get(msg, key)?.as_string()
}

/// Whether `key` of a message is `true`.
pub fn flag(msg: &JsValue, key: Key) -> bool {
    get(msg, key).and_then(|v| v.as_bool()) == Some(true)
}

/// The bytes under `key` (empty when absent: the message names no such input).
pub fn bytes(msg: &JsValue, key: Key) -> Vec<u8> {
    typed::<Uint8Array>(msg, key).map(|a| a.to_vec()).unwrap_or_default()
}

/// Sets `key` of a message (a plain object, as [`message`] makes).
pub fn insert(msg: &Object, key: Key, value: &JsValue) {
    // Setting a property of a plain object does not fail.
    let _ = Reflect::set(msg, &JsValue::from_str(key.name()), value);
}

/// A message: a plain object with these properties.
pub fn message(entries: &[(Key, JsValue)]) -> Object {
    let msg = Object::new();
    for (key, value) in entries {
        // Setting a property of a fresh plain object does not fail.
        let _ = Reflect::set(&msg, &JsValue::from_str(key.name()), value);
    }
    msg
}

/// This global scope's `location.href` (a worker's own script, to start helpers from).
pub fn location_href() -> Option<String> {
    property(&property(&js_sys::global(), "location")?, "href")?.as_string()
}

/// Whether the browser has service workers (`"serviceWorker" in navigator`).
pub fn has_service_worker(navigator: &JsValue) -> bool {
    Reflect::has(navigator, &JsValue::from_str("serviceWorker")).unwrap_or(false)
}

/// A fetch response's body read chunk by chunk (its `ReadableStream`'s reader); `progress`
/// gets the bytes read so far. None if the stream fails.
pub async fn read_body(response: &JsValue, progress: &mut dyn FnMut(f64)) -> Option<Vec<Uint8Array>> {
    let body = property(response, "body")?;
    let get_reader: Function = property(&body, "getReader")?.dyn_into().ok()?;
    let reader = get_reader.call0(&body).ok()?;
    let read: Function = property(&reader, "read")?.dyn_into().ok()?;
    let mut chunks = Vec::new();
    let mut got = 0.0;
    loop {
        let promise: Promise = read.call0(&reader).ok()?.dyn_into().ok()?;
        let step = JsFuture::from(promise).await.ok()?;
        if property(&step, "done").is_some_and(|d| d.is_truthy()) {
            return Some(chunks);
        }
        let value: Uint8Array = property(&step, "value")?.dyn_into().ok()?;
        got += f64::from(value.length());
        progress(got);
        chunks.push(value);
    }
}

/// What a thrown JavaScript value says: an `Error`'s name and message (a `DataCloneError` from
/// `postMessage`, say), else its string form.
pub fn describe(e: &JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => format!("{}: {}", String::from(err.name()), String::from(err.message())),
        None => e.as_string().unwrap_or_else(|| format!("{e:?}")),
    }
}

/// What a message to a worker is, told by the one property that names each kind (a helper's
/// job is an array whose first item is its postcard bytes). The worker dispatches on this,
/// once, instead of offering the message to each of its parts in turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// `{ warm: true }`: start the helper workers now.
    Warm,
    /// `[job bytes, …]`: a job for this worker as a helper.
    HelperJob,
    /// `{ learn_summarise }`: every training worker's runs, to summarise.
    Summarise,
    /// `{ learn_request, … }`: a training (or a part of one).
    Training,
    /// `{ request, … }`: an analysis.
    Analysis,
    /// None of these: the properties it has, to name it in the error.
    Unknown(String),
}

/// The kind of `data` (see [`Inbound`]).
pub fn inbound(data: &JsValue) -> Inbound {
    if let Some(items) = data.dyn_ref::<js_sys::Array>() {
        if items.get(0).is_instance_of::<Uint8Array>() {
            return Inbound::HelperJob;
        }
    }
    let has = |key: Key| get(data, key).is_some();
    match () {
        () if flag(data, Key::Warm) => Inbound::Warm,
        () if has(Key::LearnSummarise) => Inbound::Summarise,
        () if has(Key::LearnRequest) => Inbound::Training,
        () if has(Key::Request) => Inbound::Analysis,
        () => {
            let keys = data
                .dyn_ref::<Object>()
                .map(|o| Object::keys(o).iter().filter_map(|v| v.as_string()).collect::<Vec<_>>().join(", "));
            Inbound::Unknown(keys.unwrap_or_else(|| format!("{data:?}")))
        }
    }
}
