//! The page binary (built by Trunk from `www/index.html`).
fn main() {
    #[cfg(target_arch = "wasm32")]
    posgeo_web::dom::start();
}
