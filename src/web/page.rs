//! The page (wasm32 only): reads the controls, talks to the worker, renders the results.
//! All numbers come from the worker's [`Payload`]; this module only lays them out.

use super::dom::{self, checked, el, html, on_id, set_text, set_value, value};
use super::protocol::{Bulk, LearnedTable, Payload, Request, Response, Source};
use super::url::{Builtin, PageState};
use crate::analysis::Stage;
use crate::charts::{self, Frame};
use crate::corpus::tokenize::TokenizerKind;
use crate::corpus::{csv_headers, is_gzip, InputFormat};
use crate::counts::Mode;
use crate::metric::Metric;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, MessageEvent, MouseEvent, Worker, WorkerOptions, WorkerType};

/// Files above this size are refused before reading (the page would run out of memory).
const MAX_FILE_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
const CHARTS: [&str; 8] = ["stress", "heatmap", "spectrum", "map", "shepard", "rank", "monotonicity", "support"];

#[derive(Default)]
struct App {
    worker: Option<Worker>,
    ready: bool,
    queued: Option<JsValue>,
    run_id: u32,
    running: bool,
    started: f64,
    payload: Option<std::rc::Rc<Payload>>,
    frames: HashMap<&'static str, Frame>,
    file: Option<(String, js_sys::Uint8Array)>,
    /// An uploaded learned position table (never put in a link).
    learned: Option<(String, js_sys::Uint8Array)>,
    sort: (String, bool),
    shepard: Option<String>,
    /// Pixel of each position on the 3-D map (for hover), and the drag in progress.
    map_pixels: Vec<(i32, i32)>,
    drag: Option<(i32, i32)>,
}

thread_local! {
    static APP: RefCell<App> = RefCell::new(App::default());
}

fn with<R>(f: impl FnOnce(&mut App) -> R) -> R {
    APP.with(|a| f(&mut a.borrow_mut()))
}

fn now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Entry point of the page.
pub fn start() {
    console_error_panic_hook::set_once();
    let search = web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok();
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let Some(p) = params {
        let it = js_sys::try_iter(&p.entries()).ok().flatten();
        for entry in it.into_iter().flatten().flatten() {
            let arr: js_sys::Array = entry.unchecked_into();
            pairs.push((arr.get(0).as_string().unwrap_or_default(), arr.get(1).as_string().unwrap_or_default()));
        }
    }
    let st = PageState::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    apply_state(&st);
    if let Some((yaw, pitch)) = st.map3d {
        dom::set_checked("map-3d", true);
        set_value("map-yaw", &yaw.to_string());
        set_value("map-pitch", &pitch.to_string());
    }
    with(|a| {
        a.shepard = st.shepard.clone();
        a.sort = (String::new(), true);
    });
    wire();
    // The worker, the first run and the service worker in a task of their own: the page's
    // start-up never blocks its thread for long in one piece.
    let rest = Closure::once_into_js(|| {
        spawn_worker();
        run();
        register_service_worker();
    });
    if let Some(w) = web_sys::window() {
        w.set_timeout_with_callback(rest.unchecked_ref()).ok();
    }
}

/// Registers `sw.js` (www/sw.js), which keeps the explorer working offline once loaded.
/// Service workers exist only in secure contexts (https, localhost); elsewhere the page
/// simply works online only.
fn register_service_worker() {
    let Some(window) = web_sys::window() else { return };
    let navigator = window.navigator();
    if !window.is_secure_context() || !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    // The promise's rejection (e.g. a host that refuses the script) only costs offline use.
    let promise = navigator.service_worker().register("./sw.js");
    let ignore = Closure::<dyn FnMut(JsValue)>::new(|_: JsValue| {});
    let _ = promise.catch(&ignore);
    ignore.forget();
}

// ---------------------------------------------------------------- state ↔ controls

fn apply_state(st: &PageState) {
    dom::set_checked(if st.corpus == Builtin::Genesis { "src-genesis" } else { "src-synthetic" }, true);
    let s = &st.synth;
    for (id, v) in [
        ("synth-V", s.vocab.to_string()),
        ("synth-n", s.positions.to_string()),
        ("synth-K", s.regimes.to_string()),
        ("synth-beta", s.beta.to_string()),
        ("synth-s", s.width.to_string()),
        ("synth-seqs", s.sequences.to_string()),
        ("synth-seed", s.seed.to_string()),
    ] {
        set_value(id, &v);
    }
    let p = &st.params;
    let e = &p.encodings;
    set_value("opt-tokenizer", &format!("{:?}", p.tokenizer).to_lowercase());
    set_value("opt-lowercase", &p.lowercase.map_or(String::new(), |b| b.to_string()));
    dom::set_checked("opt-bos", p.bos);
    set_value("opt-mode", &format!("{:?}", p.mode).to_lowercase());
    set_value("opt-metric", p.metric.name());
    for (id, v) in [
        ("opt-max_len", p.max_len.to_string()),
        ("opt-min_support", p.min_support.to_string()),
        ("opt-alpha", p.alpha.to_string()),
        ("opt-top_k", p.top_k.map_or(String::new(), |k| k.to_string())),
        ("opt-tau", p.tau.to_string()),
        ("opt-energy", p.energy.to_string()),
        ("opt-d", e.d.to_string()),
        ("opt-base", e.base.to_string()),
        ("opt-head_dim", e.head_dim.to_string()),
        ("opt-slope", e.slope.to_string()),
        ("opt-sigma", e.sigma.to_string()),
        ("opt-seed", e.seed.to_string()),
        ("opt-rank", e.rank.map_or(String::new(), |k| k.to_string())),
        ("opt-smacof_iter", e.smacof_max_iter.to_string()),
    ] {
        set_value(id, &v);
    }
}

fn num<T: std::str::FromStr>(id: &str, name: &str) -> Result<T, String> {
    value(id).trim().parse().map_err(|_| format!("{name}: {:?} is not a valid number", value(id)))
}

fn opt_num(id: &str, name: &str) -> Result<Option<usize>, String> {
    let v = value(id);
    if v.trim().is_empty() {
        Ok(None)
    } else {
        num(id, name).map(Some)
    }
}

fn source_choice() -> &'static str {
    ["synthetic", "genesis", "paste", "file"].into_iter().find(|s| checked(&format!("src-{s}"))).unwrap_or("synthetic")
}

fn read_state() -> Result<PageState, String> {
    let mut st = PageState {
        corpus: if source_choice() == "genesis" { Builtin::Genesis } else { Builtin::Synthetic },
        ..Default::default()
    };
    let s = &mut st.synth;
    s.vocab = num("synth-V", "V")?;
    s.positions = num("synth-n", "n")?;
    s.regimes = num("synth-K", "K")?;
    s.beta = num("synth-beta", "β")?;
    s.width = num("synth-s", "s")?;
    s.sequences = num("synth-seqs", "sequences")?;
    s.seed = num("synth-seed", "seed")?;
    let p = &mut st.params;
    p.tokenizer = TokenizerKind::parse(&value("opt-tokenizer")).unwrap_or_default();
    p.lowercase = value("opt-lowercase").parse().ok();
    p.bos = checked("opt-bos");
    p.mode = Mode::parse(&value("opt-mode")).unwrap_or_default();
    p.metric = Metric::parse(&value("opt-metric")).unwrap_or_default();
    p.max_len = num("opt-max_len", "max_len")?;
    p.min_support = num("opt-min_support", "min_support")?;
    p.alpha = num("opt-alpha", "α")?;
    p.top_k = opt_num("opt-top_k", "top_k")?;
    p.tau = num("opt-tau", "τ")?;
    p.energy = num("opt-energy", "E")?;
    let e = &mut p.encodings;
    e.d = num("opt-d", "d")?;
    e.base = num("opt-base", "base")?;
    e.head_dim = num("opt-head_dim", "head_dim")?;
    e.slope = num("opt-slope", "slope")?;
    e.sigma = num("opt-sigma", "σ")?;
    e.seed = num("opt-seed", "seed")?;
    e.rank = opt_num("opt-rank", "rank")?;
    e.smacof_max_iter = num("opt-smacof_iter", "SMACOF iterations")?;
    st.shepard = with(|a| a.shepard.clone());
    st.map3d = checked("map-3d").then(|| {
        let deg = |id: &str| value(id).parse::<f64>().map_or(0, |v| v.round() as i32);
        (deg("map-yaw"), deg("map-pitch"))
    });
    Ok(st)
}

fn query_string(st: &PageState) -> String {
    let q = web_sys::UrlSearchParams::new().expect("URLSearchParams");
    for (k, v) in st.to_pairs() {
        q.append(&k, &v);
    }
    let s: String = q.to_string().into();
    format!("?{s}")
}

fn update_url() {
    let Ok(st) = read_state() else { return };
    let qs = query_string(&st);
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        h.replace_state_with_url(&JsValue::NULL, "", Some(&qs)).ok();
    }
    el("share-link").set_attribute("href", &qs).ok();
}

// ---------------------------------------------------------------- status

fn set_status(state: &str, text: &str) {
    let s = el("status");
    s.set_attribute("data-state", state).ok();
    s.set_text_content(Some(text));
}

fn show_error(msg: &str) {
    let e = html("error");
    e.set_text_content(Some(msg));
    e.set_hidden(false);
    set_status("error", &format!("error: {msg}"));
}

fn clear_error() {
    let e = html("error");
    e.set_text_content(None);
    e.set_hidden(true);
}

fn set_progress(v: f64) {
    el("progress").set_attribute("value", &format!("{v:.3}")).ok();
}

// ---------------------------------------------------------------- worker

fn spawn_worker() {
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options("./worker_loader.js", &opts) {
        Ok(w) => w,
        Err(e) => {
            show_error(&format!("cannot start the worker: {e:?}"));
            return;
        }
    };
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
        let data = e.data();
        if let Some(s) = data.as_string() {
            on_response(&s, None);
        } else if let Some(json) = js_sys::Reflect::get(&data, &"json".into()).ok().and_then(|v| v.as_string()) {
            on_response(&json, Some(bulk_of(&data)));
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    let onerror = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(|e: web_sys::ErrorEvent| {
        e.prevent_default();
        let was_running = with(|a| std::mem::take(&mut a.running));
        restart_worker();
        if was_running {
            show_error(&format!("the computation failed ({}); it may have run out of memory — try a smaller max_len or top_k. Earlier results are kept.", e.message()));
            el("cancel-button").set_attribute("disabled", "").ok();
        }
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();
    with(|a| {
        a.worker = Some(worker);
        a.ready = false;
    });
}

fn restart_worker() {
    if let Some(w) = with(|a| a.worker.take()) {
        w.terminate();
    }
    spawn_worker();
}

fn post(msg: JsValue) {
    with(|a| {
        if a.ready {
            if let Some(w) = &a.worker {
                w.post_message(&msg).ok();
            }
        } else {
            a.queued = Some(msg);
        }
    });
}

fn stage_index(s: Stage) -> f64 {
    match s {
        Stage::Reading => 0.0,
        Stage::Counting => 1.0,
        Stage::Distances => 2.0,
        Stage::Mds => 3.0,
        Stage::Encodings => 4.0,
        Stage::Stress => 5.0,
    }
}

/// The typed arrays transferred beside a `Done` (missing ones are left empty).
fn bulk_of(data: &JsValue) -> Bulk {
    let get = |key: &str| js_sys::Reflect::get(data, &key.into()).ok();
    let f64s = |key: &str| get(key).and_then(|v| v.dyn_into::<js_sys::Float64Array>().ok()).map(|a| a.to_vec());
    let header = get("header").and_then(|v| v.as_string()).and_then(|h| serde_json::from_str(&h).ok());
    Bulk {
        header: header.unwrap_or_default(),
        matrix: f64s("matrix").unwrap_or_default(),
        coords: f64s("coords").unwrap_or_default(),
        shepard: get("shepard")
            .and_then(|v| v.dyn_into::<js_sys::Float32Array>().ok())
            .map(|a| a.to_vec())
            .unwrap_or_default(),
    }
}

/// Handles a worker message; `bulk` holds the arrays transferred beside a `Done`.
fn on_response(s: &str, bulk: Option<Bulk>) {
    let Ok(r) = serde_json::from_str::<Response>(s) else { return };
    let current = with(|a| a.run_id);
    match r {
        Response::Ready => {
            let q = with(|a| {
                a.ready = true;
                a.queued.take().map(|m| (m, a.worker.clone()))
            });
            if let Some((m, Some(w))) = q {
                w.post_message(&m).ok();
            }
        }
        Response::Progress { id, stage, fraction } if id == current => {
            set_progress((stage_index(stage) + fraction) / 6.0);
            set_status("running", &format!("running: {} {:.0}%", stage.label(), fraction * 100.0));
        }
        Response::Estimate { id, sequences, max_positions, memory_bytes } if id == current => {
            set_text(
                "estimate",
                &format!(
                    "{sequences} sequences, up to {max_positions} positions, about {:.0} MB of working memory",
                    memory_bytes as f64 / 1e6
                ),
            );
        }
        Response::Done { id, mut payload } if id == current => {
            if let Some(bulk) = bulk {
                payload.restore_bulk(bulk);
            }
            let secs = (now() - with(|a| a.started)) / 1000.0;
            with(|a| {
                a.running = false;
                a.payload = Some(std::rc::Rc::new(*payload));
            });
            set_progress(1.0);
            el("cancel-button").set_attribute("disabled", "").ok();
            set_status("running", &format!("computed in {secs:.2} s; drawing"));
            render_all(); // sets "done" once the last chart is drawn
        }
        Response::Error { id, message } if id == current || id == 0 => {
            with(|a| a.running = false);
            el("cancel-button").set_attribute("disabled", "").ok();
            show_error(&message);
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- run / cancel

fn format_for(name: &str) -> String {
    let chosen = value("file-format");
    if chosen != "auto" {
        return chosen;
    }
    let base = name.to_lowercase();
    let base = base.trim_end_matches(".gz");
    if base.ends_with(".csv") {
        "csv"
    } else if base.ends_with(".tsv") {
        "tsv"
    } else if base.ends_with(".jsonl") || base.ends_with(".ndjson") {
        "jsonl"
    } else {
        "text"
    }
    .to_string()
}

fn input_format(name: &str) -> InputFormat {
    let column = Some(value("file-column")).filter(|c| !c.is_empty());
    match format_for(name).as_str() {
        "csv" => InputFormat::Csv { delimiter: b',', column, has_header: true },
        "tsv" => InputFormat::Csv { delimiter: b'\t', column, has_header: true },
        "jsonl" => InputFormat::Jsonl { field: value("file-field") },
        _ => InputFormat::Text,
    }
}

fn run() {
    clear_error();
    let st = match read_state() {
        Ok(s) => s,
        Err(e) => return show_error(&e),
    };
    let lossy = checked("file-lossy");
    let (source, bytes): (Source, Option<js_sys::Uint8Array>) = match source_choice() {
        "genesis" => (Source::Genesis, None),
        "paste" => {
            let text = value("corpus-input");
            if text.trim().is_empty() {
                return show_error("the paste box is empty: paste one sequence per line, or choose a built-in corpus");
            }
            let arr = js_sys::Uint8Array::from(text.as_bytes());
            (Source::Bytes { name: String::new(), format: InputFormat::Text, lossy }, Some(arr))
        }
        "file" => match with(|a| a.file.clone()) {
            Some((name, arr)) => (Source::Bytes { format: input_format(&name), name, lossy }, Some(arr)),
            None => return show_error("no file chosen: pick a file with the button or drop one on the box"),
        },
        _ => (Source::Synthetic(st.synth.clone()), None),
    };
    let (id, was_running) = with(|a| {
        a.run_id += 1;
        (a.run_id, std::mem::replace(&mut a.running, true))
    });
    if was_running {
        restart_worker(); // a new run supersedes the old one
    }
    let learned = with(|a| a.learned.clone());
    let req = Request {
        id,
        source,
        params: st.params.clone(),
        learned: learned.as_ref().map(|(name, _)| LearnedTable {
            name: name.clone(),
            tensor: Some(value("learned-tensor")).filter(|t| !t.is_empty()),
        }),
    };
    let msg = js_sys::Object::new();
    let json = serde_json::to_string(&req).unwrap_or_default();
    js_sys::Reflect::set(&msg, &"request".into(), &JsValue::from_str(&json)).ok();
    if let Some(b) = bytes {
        js_sys::Reflect::set(&msg, &"bytes".into(), &b).ok();
    }
    if let Some((_, b)) = learned {
        js_sys::Reflect::set(&msg, &"learned_bytes".into(), &b).ok();
    }
    with(|a| a.started = now());
    set_progress(0.0);
    set_text("estimate", "");
    set_status("running", "running: starting");
    el("cancel-button").remove_attribute("disabled").ok();
    update_url();
    post(msg.into());
}

fn cancel() {
    let was = with(|a| {
        a.run_id += 1;
        std::mem::take(&mut a.running)
    });
    if was {
        restart_worker();
        set_progress(0.0);
        set_status("idle", "cancelled — the previous results are kept");
    }
    el("cancel-button").set_attribute("disabled", "").ok();
}

// ---------------------------------------------------------------- files

/// Reads a chosen file into memory (the browser reads it; the page only awaits), with
/// progress in `#<info>`; `then` receives its name and bytes.
fn read_file(file: web_sys::File, info: &'static str, then: impl FnOnce(String, js_sys::Uint8Array) + 'static) {
    if file.size() > MAX_FILE_BYTES {
        return show_error(&format!(
            "{} is {:.0} MB: too large to analyse in the browser (limit {:.0} MB); use the posgeo command line",
            file.name(),
            file.size() / 1e6,
            MAX_FILE_BYTES / 1e6
        ));
    }
    let name = file.name();
    set_text(info, &format!("reading {name}…"));
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buf) => then(name, js_sys::Uint8Array::new(&buf)),
            Err(_) => show_error(&format!("cannot read {name}")),
        }
    });
}

fn load_file(file: web_sys::File) {
    read_file(file, "file-info", |name, arr| {
        set_text("file-info", &format!("{name} — {:.2} MB", arr.length() as f64 / 1e6));
        fill_columns(&name, &arr);
        with(|a| a.file = Some((name, arr)));
        dom::set_checked("src-file", true);
    });
}

/// Reads a learned position table; a safetensors file fills the tensor picker from its header.
fn load_learned(file: web_sys::File) {
    read_file(file, "learned-info", |name, arr| {
        use crate::tables::{format_of, header_matrices, pick_positional, TableFormat};
        let len = arr.length();
        let (matrices, what) = match format_of(&arr.subarray(0, 9.min(len)).to_vec(), len as usize) {
            TableFormat::Safetensors { header_len } => {
                let header = arr.subarray(8, 8 + header_len as u32).to_vec();
                let m = header_matrices(&header).unwrap_or_default();
                let what = format!("safetensors, {} matrices", m.len());
                (m, what)
            }
            TableFormat::Npy => (Vec::new(), "NumPy array".to_string()),
            TableFormat::Text => (Vec::new(), "text/CSV".to_string()),
        };
        let select = el("learned-tensor");
        select.set_text_content(None);
        let found = pick_positional(&matrices);
        for (k, (tensor, [r, c])) in matrices.iter().enumerate() {
            let opt = dom::make("option", &format!("{tensor} ({r}×{c})"));
            opt.set_attribute("value", tensor).ok();
            if Some(k) == found {
                opt.set_attribute("selected", "").ok();
            }
            select.append_child(&opt).ok();
        }
        set_text(
            "learned-info",
            &format!("{name} — {:.2} MB, {what}; compared as `learned` in the next run", len as f64 / 1e6),
        );
        with(|a| a.learned = Some((name, arr)));
    });
}

/// The first 64 KiB of the (decompressed) file, for the column picker.
fn head(arr: &js_sys::Uint8Array) -> Vec<u8> {
    let raw = arr.subarray(0, arr.length().min(1 << 16)).to_vec();
    if !is_gzip(&raw) {
        return raw;
    }
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(&raw[..]);
    let mut chunk = [0u8; 8192];
    while out.len() < (1 << 16) {
        match dec.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(k) => out.extend_from_slice(&chunk[..k]),
        }
    }
    out
}

fn fill_columns(name: &str, arr: &js_sys::Uint8Array) {
    let select = el("file-column");
    select.set_text_content(None);
    let delimiter = match format_for(name).as_str() {
        "csv" => b',',
        "tsv" => b'\t',
        _ => return,
    };
    let Ok(headers) = csv_headers(&head(arr), delimiter) else { return };
    let preferred = ["text", "sentence", "review", "content", "body"];
    let pick = headers.iter().position(|h| preferred.contains(&h.to_lowercase().as_str())).unwrap_or(0);
    for (k, h) in headers.iter().enumerate() {
        let opt = dom::make("option", h);
        opt.set_attribute("value", h).ok();
        if k == pick {
            opt.set_attribute("selected", "").ok();
        }
        select.append_child(&opt).ok();
    }
}

// ---------------------------------------------------------------- wiring

fn wire() {
    on_id("run-button", "click", |_: web_sys::Event| run());
    on_id("cancel-button", "click", |_: web_sys::Event| cancel());
    on_id("file-input", "change", |_: web_sys::Event| {
        let input: web_sys::HtmlInputElement = el("file-input").unchecked_into();
        if let Some(f) = input.files().and_then(|l| l.get(0)) {
            load_file(f);
        }
    });
    on_id("learned-input", "change", |_: web_sys::Event| {
        let input: web_sys::HtmlInputElement = el("learned-input").unchecked_into();
        if let Some(f) = input.files().and_then(|l| l.get(0)) {
            load_learned(f);
        }
    });
    on_id("learned-clear", "click", |_: web_sys::Event| {
        with(|a| a.learned = None);
        let input: web_sys::HtmlInputElement = el("learned-input").unchecked_into();
        input.set_value("");
        el("learned-tensor").set_text_content(None);
        set_text("learned-info", "");
    });
    on_id("drop-zone", "dragover", |e: web_sys::DragEvent| {
        e.prevent_default();
        el("drop-zone").class_list().add_1("over").ok();
    });
    on_id("drop-zone", "dragleave", |_: web_sys::DragEvent| {
        el("drop-zone").class_list().remove_1("over").ok();
    });
    on_id("drop-zone", "drop", |e: web_sys::DragEvent| {
        e.prevent_default();
        el("drop-zone").class_list().remove_1("over").ok();
        if let Some(f) = e.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)) {
            load_file(f);
        }
    });
    on_id("corpus-input", "input", |_: web_sys::Event| dom::set_checked("src-paste", true));
    on_id("file-format", "change", |_: web_sys::Event| {
        if let Some((name, arr)) = with(|a| a.file.clone()) {
            fill_columns(&name, &arr);
        }
    });
    on_id("shepard-select", "change", |_: web_sys::Event| {
        with(|a| a.shepard = Some(value("shepard-select")));
        draw("shepard");
        update_url();
    });
    // Sortable table headers.
    let heads = dom::document().query_selector_all("#stress-table th").expect("headers");
    for k in 0..heads.length() {
        let Some(th) = heads.item(k) else { continue };
        let th: web_sys::Element = th.unchecked_into();
        let key = th.get_attribute("data-sort").unwrap_or_default();
        dom::on(&th, "click", move |_: web_sys::Event| {
            with(|a| {
                let asc = if a.sort.0 == key { !a.sort.1 } else { true };
                a.sort = (key.clone(), asc);
            });
            render_table();
        });
    }
    // The 3-D map: a switch, two sliders, and drag to rotate.
    // Redraw while a slider moves; write the link once it is let go.
    for id in ["map-3d", "map-yaw", "map-pitch"] {
        on_id(id, "input", |_: web_sys::Event| draw("map"));
        on_id(id, "change", |_: web_sys::Event| update_url());
    }
    on_id("chart-map", "mousedown", |e: MouseEvent| {
        if checked("map-3d") {
            with(|a| a.drag = Some((e.offset_x(), e.offset_y())));
        }
    });
    for end in ["mouseup", "mouseleave"] {
        on_id("chart-map", end, |_: MouseEvent| {
            if with(|a| a.drag.take()).is_some() {
                update_url();
            }
        });
    }
    on_id("chart-map", "mousemove", |e: MouseEvent| drag_map(&e));
    for name in CHARTS {
        on_id(&format!("chart-{name}"), "mousemove", move |e: MouseEvent| hover(name, &e));
    }
    let buttons = dom::document().query_selector_all("button[data-chart]").expect("buttons");
    for k in 0..buttons.length() {
        let Some(b) = buttons.item(k) else { continue };
        let b: web_sys::Element = b.unchecked_into();
        let chart = b.get_attribute("data-chart").unwrap_or_default();
        let kind = b.get_attribute("data-kind").unwrap_or_default();
        dom::on(&b, "click", move |_: web_sys::Event| export_chart(&chart, &kind));
    }
    on_id("export-json", "click", |_: web_sys::Event| export("json"));
    on_id("export-table", "click", |_: web_sys::Event| export("table"));
    on_id("export-matrix", "click", |_: web_sys::Event| export("matrix"));
    on_id("export-coords", "click", |_: web_sys::Event| export("coords"));
}

// ---------------------------------------------------------------- rendering

fn payload() -> Option<std::rc::Rc<Payload>> {
    with(|a| a.payload.clone())
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| {
        if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e4) {
            format!("{x:.3e}")
        } else {
            format!("{x:.4}")
        }
    })
}

fn render_all() {
    let Some(p) = payload() else { return };
    let r = &p.report;
    let summary = el("summary");
    summary.set_text_content(None);
    let lines = [
        format!(
            "{} sequences, {} tokens counted at kept positions, vocabulary |V| = {}",
            r.sequences, r.tokens, r.vocab_size
        ),
        format!("n = {} positions kept (support from {} down to {})", r.n, r.support[0], r.support[r.n - 1]),
        r.dropped_reason.clone().unwrap_or_else(|| "no position dropped".into()),
        format!(
            "metric: {}; effective rank r_τ = {}, energy rank r_E = {}, negative mass {}",
            r.metric,
            r.effective_rank,
            r.energy_rank,
            fmt(Some(r.negative_mass))
        ),
        format!(
            "monotonicity violation rate of the corpus metric itself: {}",
            fmt(r.corpus_monotonicity_violation_rate)
        ),
    ];
    for l in lines
        .iter()
        .chain((r.skipped_lines > 0).then(|| format!("{} line(s) of invalid UTF-8 skipped", r.skipped_lines)).iter())
    {
        summary.append_child(&dom::make("p", l)).ok();
    }
    // Shepard choices.
    let sel = el("shepard-select");
    sel.set_text_content(None);
    let want =
        with(|a| a.shepard.clone()).filter(|s| r.encodings.contains_key(s)).unwrap_or_else(|| "sinusoidal".into());
    for name in &r.encoding_order {
        let o = dom::make("option", name);
        o.set_attribute("value", name).ok();
        sel.append_child(&o).ok();
    }
    set_value("shepard-select", &want);
    render_table();
    draw_later(0);
}

/// Draws the charts one per task (the first in a task of its own too, not in the one that
/// parsed the results), so the page never blocks for more than one chart.
fn draw_later(k: usize) {
    let next = Closure::once_into_js(move || {
        let Some(&name) = CHARTS.get(k) else {
            let secs = (now() - with(|a| a.started)) / 1000.0;
            return set_status("done", &format!("done in {secs:.2} s"));
        };
        draw(name);
        draw_later(k + 1);
    });
    if let Some(w) = web_sys::window() {
        w.set_timeout_with_callback(next.unchecked_ref()).ok();
    }
}

fn render_table() {
    let Some(p) = payload() else { return };
    let r = &p.report;
    let (key, asc) = with(|a| a.sort.clone());
    let mut names = r.encoding_order.clone();
    if !key.is_empty() && key != "name" {
        let val = |n: &String| -> f64 {
            let e = &r.encodings[n];
            match key.as_str() {
                "dim" => e.dim as f64,
                "parameters" => e.parameters as f64,
                "raw_stress" => e.raw_stress,
                "scaled_stress" => e.scaled_stress,
                "scale" => e.scale,
                "spearman" => e.spearman.unwrap_or(f64::NEG_INFINITY),
                _ => e.monotonicity_violation_rate.unwrap_or(f64::NEG_INFINITY),
            }
        };
        names.sort_by(|a, b| val(a).total_cmp(&val(b)));
    } else if key == "name" {
        names.sort();
    }
    if !asc {
        names.reverse();
    }
    let body = dom::document().query_selector("#stress-table tbody").ok().flatten().expect("tbody");
    body.set_text_content(None);
    for n in &names {
        let e = &r.encodings[n];
        let tr = dom::make("tr", "");
        tr.set_attribute("data-encoding", n).ok();
        tr.append_child(&dom::make("td", n)).ok();
        tr.append_child(&dom::make("td", &e.dim.to_string())).ok();
        tr.append_child(&dom::make("td", &e.parameters.to_string())).ok();
        for (metric, v) in [
            ("raw_stress", Some(e.raw_stress)),
            ("scaled_stress", Some(e.scaled_stress)),
            ("scale", Some(e.scale)),
            ("spearman", e.spearman),
            ("monotonicity_violation_rate", e.monotonicity_violation_rate),
        ] {
            let td = dom::make("td", &fmt(v));
            td.set_attribute("data-metric", metric).ok();
            td.set_attribute("data-value", &v.map_or("null".to_string(), |x| format!("{x:?}"))).ok();
            tr.append_child(&td).ok();
        }
        body.append_child(&tr).ok();
    }
}

/// Draws one chart on any backend. On canvas (`svg` = false) the heatmap's cells are left
/// to [`paint_heatmap`]; for SVG they are drawn as rectangles (block means, ≤ 128²).
fn draw_on<DB: DrawingBackend>(
    name: &str,
    root: &DrawingArea<DB, plotters::coord::Shift>,
    p: &Payload,
    svg: bool,
) -> Result<Frame, String> {
    let r = &p.report;
    match name {
        "stress" => charts::stress_bars(root, r),
        "heatmap" => {
            let m = r.matrix.values().next().map(Vec::as_slice).unwrap_or(&[]);
            charts::heatmap(root, m, &r.metric, svg, 128)
        }
        "spectrum" => charts::spectrum(root, r),
        "map" if checked("map-3d") => {
            let pixels = charts::pmds_map_3d(root, &r.pmds_coordinates, map_view())?;
            if !svg {
                with(|a| a.map_pixels = pixels);
            }
            // Hover on the 3-D map works in pixels: an identity frame over the whole canvas.
            let (w, h) = root.dim_in_pixel();
            Ok(Frame { px: (0, w as i32), py: (0, h as i32), x: (0.0, w as f64), y: (h as f64, 0.0), log_y: false })
        }
        "map" => charts::pmds_map(root, &r.pmds_coordinates),
        "shepard" => {
            let enc = value("shepard-select");
            let pts = p.shepard.get(&enc).map(Vec::as_slice).unwrap_or(&[]);
            charts::shepard(root, &enc, pts)
        }
        "rank" => charts::rank_curve(root, r),
        "monotonicity" => charts::monotonicity(root, r),
        _ => charts::support(root, r),
    }
}

/// The 3-D map's view from its two sliders (degrees).
fn map_view() -> charts::View3d {
    let deg = |id: &str| value(id).parse::<f64>().unwrap_or(0.0).to_radians();
    charts::View3d { yaw: deg("map-yaw"), pitch: deg("map-pitch") }
}

/// Drag on the 3-D map: turn (horizontal) and tilt (vertical), through the sliders.
fn drag_map(e: &MouseEvent) {
    let Some((x0, y0)) = with(|a| a.drag) else { return };
    let (x, y) = (e.offset_x(), e.offset_y());
    with(|a| a.drag = Some((x, y)));
    let turn = |id: &str, by: f64, lo: f64, hi: f64| {
        let v = value(id).parse::<f64>().unwrap_or(0.0) + by;
        let v = if hi >= 180.0 { (v + 540.0).rem_euclid(360.0) - 180.0 } else { v.clamp(lo, hi) };
        set_value(id, &format!("{v:.0}"));
    };
    turn("map-yaw", (x - x0) as f64 * 0.5, -180.0, 180.0);
    turn("map-pitch", (y - y0) as f64 * 0.5, -90.0, 90.0);
    draw("map");
}

fn canvas(name: &str) -> HtmlCanvasElement {
    el(&format!("chart-{name}")).unchecked_into()
}

fn draw(name: &'static str) {
    let Some(p) = payload() else { return };
    let c = canvas(name);
    let Some(backend) = CanvasBackend::with_canvas_object(c.clone()) else { return };
    let root = backend.into_drawing_area();
    let result = draw_on(name, &root, &p, false);
    root.present().ok();
    match result {
        Ok(frame) => {
            if name == "heatmap" {
                paint_heatmap(&c, &frame, &p);
            }
            with(|a| a.frames.insert(name, frame));
        }
        Err(e) => set_text(&format!("readout-{name}"), &e),
    }
}

/// Paints the distance matrix as a bitmap into the heatmap's plotting area.
fn paint_heatmap(c: &HtmlCanvasElement, f: &Frame, p: &Payload) {
    let Some(m) = p.report.matrix.values().next() else { return };
    let n = m.len();
    let (w, h) = ((f.px.1 - f.px.0).max(1) as usize, (f.py.1 - f.py.0).max(1) as usize);
    if n == 0 {
        return;
    }
    let max = m.iter().flatten().copied().fold(0.0f64, f64::max).max(1e-300);
    let lut: Vec<RGBColor> = (0..256).map(|k| charts::viridis(k as f64 / 255.0)).collect();
    let mut data = vec![255u8; w * h * 4];
    for y in 0..h {
        let i = (y * n / h).min(n - 1);
        for x in 0..w {
            let j = (x * n / w).min(n - 1);
            let RGBColor(r, g, b) = lut[((m[i][j] / max) * 255.0).round().clamp(0.0, 255.0) as usize];
            let o = (y * w + x) * 4;
            data[o..o + 3].copy_from_slice(&[r, g, b]);
        }
    }
    let Ok(Some(ctx)) = c.get_context("2d") else { return };
    let ctx: web_sys::CanvasRenderingContext2d = ctx.unchecked_into();
    if let Ok(img) =
        web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&data), w as u32, h as u32)
    {
        ctx.put_image_data(&img, f.px.0 as f64, f.py.0 as f64).ok();
    }
}

fn tokens_of(p: &Payload, i: usize) {
    let r = &p.report;
    let Some(top) = r.top_tokens.get(i) else { return };
    let list: Vec<String> = top.iter().map(|(t, c)| format!("{t:?} ×{c}")).collect();
    set_text("position-tokens", &format!("position {i} (N = {}): {}", r.support[i], list.join(", ")));
}

fn hover(name: &'static str, e: &MouseEvent) {
    let (Some(p), Some(frame)) = (payload(), with(|a| a.frames.get(name).copied())) else { return };
    let c = canvas(name);
    let sx = c.width() as f64 / c.client_width().max(1) as f64;
    let sy = c.height() as f64 / c.client_height().max(1) as f64;
    let Some((x, y)) = frame.to_data((e.offset_x() as f64 * sx) as i32, (e.offset_y() as f64 * sy) as i32) else {
        return;
    };
    let r = &p.report;
    let text = match name {
        "stress" => r.encoding_order.get(x.max(0.0) as usize).map(|n| {
            let s = &r.encodings[n];
            format!(
                "{n}: raw σ = {}, scaled σ* = {}, a* = {}",
                fmt(Some(s.raw_stress)),
                fmt(Some(s.scaled_stress)),
                fmt(Some(s.scale))
            )
        }),
        "heatmap" => {
            let (i, j) = (y.max(0.0) as usize, x.max(0.0) as usize);
            r.matrix.values().next().and_then(|m| m.get(i).and_then(|row| row.get(j))).map(|d| {
                tokens_of(&p, i);
                format!("i = {i}, j = {j}, D_ij = {d:.6}")
            })
        }
        "spectrum" => {
            let k = x.round().max(1.0) as usize;
            r.eigenvalues.get(k - 1).map(|l| format!("λ_{k} = {l:.6e}"))
        }
        "map" if checked("map-3d") => {
            let pixels = with(|a| a.map_pixels.clone());
            let best = pixels
                .iter()
                .enumerate()
                .map(|(i, &(px, py))| ((px as f64 - x).powi(2) + (py as f64 - y).powi(2), i))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            best.filter(|&(d2, _)| d2 <= 144.0).and_then(|(_, i)| {
                let c = r.pmds_coordinates.get(i)?;
                tokens_of(&p, i);
                let at = |k: usize| c.get(k).copied().unwrap_or(0.0);
                Some(format!("position {i}: x₁ = {:.4}, x₂ = {:.4}, x₃ = {:.4}", at(0), at(1), at(2)))
            })
        }
        "map" => {
            let (sx, sy) = ((frame.x.1 - frame.x.0).max(1e-300), (frame.y.1 - frame.y.0).max(1e-300));
            let best = r.pmds_coordinates.iter().enumerate().min_by(|a, b| {
                let d =
                    |c: &Vec<f64>| ((c[0] - x) / sx).powi(2) + ((c.get(1).copied().unwrap_or(0.0) - y) / sy).powi(2);
                d(a.1).total_cmp(&d(b.1))
            });
            best.map(|(i, c)| {
                tokens_of(&p, i);
                format!("position {i}: x₁ = {:.4}, x₂ = {:.4}", c[0], c.get(1).copied().unwrap_or(0.0))
            })
        }
        "shepard" => Some(format!("D = {x:.4}, a*·δ = {y:.4}")),
        "rank" => {
            let k = x.round().max(1.0) as usize;
            r.rank_curve.get(k - 1).map(|pt| {
                format!(
                    "r = {k}: σ = {}, σ* = {}, parameters r(n+d) = {} vs n·d = {}",
                    fmt(Some(pt.raw_stress)),
                    fmt(Some(pt.scaled_stress)),
                    pt.parameters,
                    r.n * r.params.encodings.d
                )
            })
        }
        "monotonicity" => {
            let k = x.max(0.0) as usize;
            if k == 0 {
                Some(format!("corpus D: {}", fmt(r.corpus_monotonicity_violation_rate)))
            } else {
                r.encoding_order.get(k - 1).map(|n| format!("{n}: {}", fmt(r.encodings[n].monotonicity_violation_rate)))
            }
        }
        _ => {
            let i = x.max(0.0) as usize;
            r.support_all.get(i).map(|s| {
                if i < r.n {
                    tokens_of(&p, i);
                }
                format!("position {i}: N = {s} ({})", if i < r.n { "kept" } else { "dropped" })
            })
        }
    };
    if let Some(t) = text {
        set_text(&format!("readout-{name}"), &t);
    }
}

// ---------------------------------------------------------------- exports

fn export_chart(name: &str, kind: &str) {
    let Some(p) = payload() else { return };
    if kind == "png" {
        if let Ok(url) = canvas(name).to_data_url() {
            dom::download_url(&format!("posgeo-{name}.png"), &url);
        }
        return;
    }
    let c = canvas(name);
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (c.width(), c.height())).into_drawing_area();
        if let Err(e) = draw_on(name, &root, &p, true) {
            return show_error(&e);
        }
        root.present().ok();
    }
    dom::download(&format!("posgeo-{name}.svg"), "image/svg+xml", s.as_bytes());
}

fn csv_rows(rows: &[Vec<f64>]) -> String {
    rows.iter().map(|r| r.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(",")).collect::<Vec<_>>().join("\n")
        + "\n"
}

fn export(what: &str) {
    let Some(p) = payload() else { return };
    let r = &p.report;
    match what {
        "json" => {
            let s = serde_json::to_string_pretty(r).unwrap_or_default();
            dom::download("posgeo-report.json", "application/json", s.as_bytes());
        }
        "table" => {
            let mut s = String::from(
                "encoding,dim,parameters,raw_stress,scaled_stress,scale,spearman,monotonicity_violation_rate\n",
            );
            let o = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:?}"));
            for n in &r.encoding_order {
                let e = &r.encodings[n];
                s.push_str(&format!(
                    "{n},{},{},{:?},{:?},{:?},{},{}\n",
                    e.dim,
                    e.parameters,
                    e.raw_stress,
                    e.scaled_stress,
                    e.scale,
                    o(e.spearman),
                    o(e.monotonicity_violation_rate)
                ));
            }
            dom::download("posgeo-stress.csv", "text/csv", s.as_bytes());
        }
        "matrix" => {
            let m = r.matrix.values().next().cloned().unwrap_or_default();
            dom::download(&format!("posgeo-{}.csv", r.metric), "text/csv", csv_rows(&m).as_bytes());
        }
        _ => dom::download("posgeo-pmds-coordinates.csv", "text/csv", csv_rows(&p.coordinates).as_bytes()),
    }
}
