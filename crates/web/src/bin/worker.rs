//! The Web Worker binary (built by Trunk as `worker.js` + `worker_loader.js`).
fn main() {
    #[cfg(target_arch = "wasm32")]
    posgeo_web::worker::start();
}
