//! **The default run, shipped with the page.** The results of the request the page makes on
//! first load (the built-in synthetic corpus at the default options) are computed ahead of
//! time and compiled into the page, so the first dashboard is drawn while the worker starts.
//! The worker still runs the request, unseen, so that its geometry is kept for live updates.
//!
//! `www/default-run/request.json` is that request (with id 0). The answer is stored as the
//! worker sends it ([`Payload::take_bulk`]): `payload.json` without the bulky numbers, and
//! those numbers as little-endian arrays in `bulk.bin`, laid out by `bulk.json`; so the
//! page parses a few hundred kB of JSON, not a megabyte. The unit test
//! `shipped_run_is_current` recomputes the answer through the worker's own function and
//! fails when the files are stale (numbers compared to 1e-12, so a machine with other
//! floating-point kernels agrees); `POSGEO_BLESS=1 cargo test --lib shipped` rewrites them.

use super::{Bulk, BulkHeader, Payload, Request};
use serde::{Deserialize, Serialize};

/// The shipped request (id 0), JSON.
pub const REQUEST: &str = include_str!("../../../../www/default-run/request.json");
/// The worker's answer to it without its bulky numbers, JSON.
pub const PAYLOAD: &str = include_str!("../../../../www/default-run/payload.json");
/// The layout of [`BULK`], JSON of [`Layout`].
const LAYOUT: &str = include_str!("../../../../www/default-run/bulk.json");
/// The answer's bulky numbers: the matrix and coordinates (f64), then the Shepard pairs (f32).
const BULK: &[u8] = include_bytes!("../../../../www/default-run/bulk.bin");

/// How many numbers of each array [`BULK`] holds, in order.
#[derive(Serialize, Deserialize)]
struct Layout {
    header: BulkHeader,
    matrix: usize,
    coords: usize,
    shepard: usize,
}

/// The shipped results when `req` is the shipped request (whatever its id).
/// The request is compared as its JSON text (exact on every target, whatever the parser's
/// last bit would do).
pub fn answer(req: &Request) -> Option<Payload> {
    let json = serde_json::to_string(&Request { id: 0, ..req.clone() }).ok()?;
    if json != REQUEST.trim_end() {
        return None;
    }
    let mut payload: Payload = serde_json::from_str(PAYLOAD).ok()?;
    payload.restore_bulk(bulk()?);
    Some(payload)
}

/// [`BULK`] read by [`LAYOUT`].
fn bulk() -> Option<Bulk> {
    let layout: Layout = serde_json::from_str(LAYOUT).ok()?;
    let (matrix, rest) = BULK.split_at_checked(8 * layout.matrix)?;
    let (coords, shepard) = rest.split_at_checked(8 * layout.coords)?;
    if shepard.len() != 4 * layout.shepard {
        return None;
    }
    let f64s = |b: &[u8]| b.chunks_exact(8).map(|c| c.try_into().map(f64::from_le_bytes)).collect::<Result<_, _>>();
    let f32s = |b: &[u8]| b.chunks_exact(4).map(|c| c.try_into().map(f32::from_le_bytes)).collect::<Result<_, _>>();
    Some(Bulk {
        header: layout.header,
        matrix: f64s(matrix).ok()?,
        coords: f64s(coords).ok()?,
        shepard: f32s(shepard).ok()?,
    })
}

/// The files of an answer: `payload.json`, `bulk.json` and `bulk.bin` (for blessing).
#[cfg(test)]
fn files(mut payload: Payload) -> (String, String, Vec<u8>) {
    let b = payload.take_bulk();
    let layout = Layout { header: b.header, matrix: b.matrix.len(), coords: b.coords.len(), shepard: b.shepard.len() };
    let mut bin: Vec<u8> = b.matrix.iter().chain(&b.coords).flat_map(|x| x.to_le_bytes()).collect();
    bin.extend(b.shepard.iter().flat_map(|x| x.to_le_bytes()));
    (serde_json::to_string(&payload).expect("json"), serde_json::to_string(&layout).expect("json"), bin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{update, Effect, Form, Model, Msg};
    use crate::url::PageState;
    use serde_json::Value;

    /// The request the page makes on first load.
    fn first_request() -> Request {
        let mut m = Model::default();
        update(&mut m, Msg::Start(Box::default()));
        let mut fx = update(&mut m, Msg::Run { form: Form::from_state(&PageState::default()), at: 0.0 });
        fx.extend(update(&mut m, Msg::WorkerReady));
        let job = fx.iter().find_map(|e| if let Effect::Post(j) = e { Some(j.clone()) } else { None });
        Request { id: 0, ..job.expect("the first run posts a job").request }
    }

    /// Same shape, strings and integers; floating-point numbers within 1e-12 (relative above 1,
    /// absolute below: round-off-sized stresses differ between machines), or
    /// one single-precision step for numbers that are single-precision values.
    fn close(a: &Value, b: &Value, path: &str) -> std::result::Result<(), String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
                x.iter().try_for_each(|(k, v)| close(v, y.get(k).unwrap_or(&Value::Null), &format!("{path}.{k}")))
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().try_for_each(|(i, (v, w))| close(v, w, &format!("{path}[{i}]")))
            }
            (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
                let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
                // Single-precision fields (charts' samples) may round the other way: one f32 step.
                let single = f64::from(x as f32) == x && f64::from(y as f32) == y;
                let tol = if single { 2.4e-7 } else { 1e-12 };
                let ok = (x - y).abs() <= tol * x.abs().max(y.abs()).max(1.0) || x == y;
                ok.then_some(()).ok_or(format!("{path}: {x} vs {y}"))
            }
            _ => (a == b).then_some(()).ok_or(format!("{path}: {a} vs {b}")),
        }
    }

    #[test]
    fn shipped_run_is_current() {
        let request = first_request();
        let payload = super::super::run(&request, b"", b"", &mut |_| {}).expect("the default run succeeds");
        if std::env::var_os("POSGEO_BLESS").is_some() {
            let dir = concat!(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."), "/www/default-run");
            std::fs::write(format!("{dir}/request.json"), serde_json::to_string(&request).expect("json"))
                .expect("write");
            let (json, layout, bin) = files(payload);
            for (name, bytes) in
                [("payload.json", json.as_bytes()), ("bulk.json", layout.as_bytes()), ("bulk.bin", &bin)]
            {
                std::fs::write(format!("{dir}/{name}"), bytes).expect("write");
            }
            return;
        }
        let stale = "www/default-run is stale: run `POSGEO_BLESS=1 cargo test --lib shipped`";
        assert_eq!(serde_json::from_str::<Request>(REQUEST).expect("request.json"), request, "{stale}");
        // Both through the text (single-precision numbers print shortest).
        let text = |p: &Payload| serde_json::from_str::<Value>(&serde_json::to_string(p).expect("json")).expect("json");
        let shipped = text(&answer(&request).expect(stale));
        let fresh = text(&payload);
        if let Err(e) = close(&fresh, &shipped, "payload") {
            panic!("{stale}: {e}");
        }
        assert!(answer(&Request { id: 7, ..request }).is_some(), "the first run is answered");
    }

    #[test]
    fn another_request_is_not_answered() {
        let mut request = first_request();
        request.params.max_len += 1;
        assert!(answer(&request).is_none());
    }
}
