//! **The wire** from the page to its workers: a request ([`super::Request`],
//! [`super::learn::LearnRequest`]) as postcard bytes, as the helpers' jobs travel (`jobs.rs`),
//! its bulky inputs beside it as arrays. A request that cannot be read is refused with the id
//! it starts with (every request's first field), so the page knows which run or training
//! failed.

use serde::Serialize;

/// A request of the page's ([`super::Request`], [`super::learn::LearnRequest`]) as it travels to a worker:
/// its postcard bytes, as the helpers' jobs travel (`jobs.rs`).
pub fn encode_request<T: Serialize>(request: &T) -> Vec<u8> {
    // The requests hold only what postcard writes (no internally tagged enum, no map with
    // keys that are not strings): encoding cannot fail, and an empty message would be refused
    // by the worker, by id 0, if it ever did.
    postcard::to_allocvec(request).unwrap_or_default()
}

/// A request a worker cannot read: the run or training its id names (the first field of
/// every request, so it is read even when the rest is not; 0 when even that is missing) and
/// why.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    /// The id the request's bytes start with.
    pub id: u32,
    /// postcard's reason.
    pub why: String,
}

/// Reads a request [`encode_request`] wrote.
pub fn decode_request<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> std::result::Result<T, Unreadable> {
    postcard::from_bytes(bytes).map_err(|e| Unreadable {
        id: postcard::take_from_bytes::<u32>(bytes).map_or(0, |(id, _)| id),
        why: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Request, Source};
    use posgeo::analysis::AnalysisParams;
    use posgeo::corpus::InputFormat;
    use posgeo::demos::synth::SynthParams;

    /// Requests travel as postcard bytes and come back equal; one cut short, or of another
    /// shape, is refused with the id it starts with, so the page knows which run failed.
    #[test]
    fn a_request_round_trips_and_an_unreadable_one_keeps_its_id() {
        let source = Source::Bytes {
            name: "a.csv".into(),
            format: InputFormat::Csv { delimiter: b';', column: Some("text".into()), has_header: true },
            lossy: true,
        };
        let params = AnalysisParams { max_len: 77, ..AnalysisParams::default() };
        let req = Request {
            id: 7,
            source,
            params,
            learned: None,
            tokenizer: Some("t.json".into()),
            model: None,
            reuse_geometry: true,
        };
        let bytes = encode_request(&req);
        assert_eq!(decode_request::<Request>(&bytes), Ok(req.clone()));
        for sources in [Source::Genesis, Source::Proteins, Source::Synthetic(SynthParams::default())] {
            let other = Request { source: sources, ..req.clone() };
            assert_eq!(decode_request::<Request>(&encode_request(&other)), Ok(other));
        }
        let cut = decode_request::<Request>(&bytes[..bytes.len() - 3]).unwrap_err();
        assert_eq!(cut.id, 7);
        assert!(!cut.why.is_empty());
        assert_eq!(decode_request::<Request>(&[]).unwrap_err().id, 0);
        let mut lying = encode_request(&Request { id: 300, ..req });
        lying[2] = 0xff; // the source's variant: none has this number
        assert_eq!(decode_request::<Request>(&lying).unwrap_err().id, 300);
    }
}
