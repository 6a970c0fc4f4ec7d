//! The URL state: any query string restores some view, and the link written for that view
//! restores the same view again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use posgeo_web::url::PageState;

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else { return };
    let pairs: Vec<(&str, &str)> = query.split('&').filter_map(|kv| kv.split_once('=')).collect();
    let st = PageState::from_pairs(pairs);
    let written = st.to_pairs();
    let back = PageState::from_pairs(written.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    assert_eq!(back, st, "a written link restores its view");
});
