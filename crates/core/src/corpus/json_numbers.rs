//! The numbers of a `tokenizer.json` as the Python `tokenizers` package reads them.
//!
//! The package's `serde_json` reads a number with a fraction or an exponent quickly rather
//! than exactly: its digits as a `u64` (digits past that range dropped), then one product or
//! quotient by a power of ten — two roundings, so a score can come out one unit in the last
//! place away from the nearest double. posgeo's `serde_json` has `float_roundtrip` (the page
//! reads the worker's JSON bit for bit), and Cargo gives the `tokenizers` crate that same
//! exact reader, natively and in wasm. Mostly that changes nothing; but when two Unigram
//! segmentations are the same pieces in another order (`. ...` and `... .`), their scores
//! tie and the last bit of two sums decides, so the reading decides.
//!
//! [`as_the_package_reads`] rewrites each number the two readers read differently as the
//! shortest text of the package's reading, which the exact reader reads back bit for bit.

use std::borrow::Cow;

/// `bytes` (valid JSON) with every number the package reads otherwise than the exact reader
/// rewritten to the package's reading; borrowed when there is none.
pub(super) fn as_the_package_reads(bytes: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let (mut i, mut copied, mut in_string) = (0, 0, false);
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b != b'-' && !b.is_ascii_digit() {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        let end = bytes[i..]
            .iter()
            .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
            .map_or(bytes.len(), |n| i + n);
        let text = std::str::from_utf8(&bytes[i..end]).unwrap_or_default();
        let exact = text.parse::<f64>().ok().map(f64::to_bits);
        if let Some(f) = package_reading(text).filter(|f| Some(f.to_bits()) != exact) {
            let o = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
            o.extend_from_slice(&bytes[copied..i]);
            o.extend_from_slice(format!("{f:e}").as_bytes());
            copied = end;
        }
        i = end;
    }
    match out {
        None => Cow::Borrowed(bytes),
        Some(mut o) => {
            o.extend_from_slice(&bytes[copied..]);
            Cow::Owned(o)
        }
    }
}

/// `serde_json` 1's value of the JSON number `text` without its `float_roundtrip` feature
/// (`Deserializer::parse_integer` to `f64_from_parts`); `None` when it refuses it as out of
/// range (the file is then left to the exact reader).
fn package_reading(text: &str) -> Option<f64> {
    let (negative, digits) = text.strip_prefix('-').map_or((false, text), |rest| (true, rest));
    let (mantissa, exp) = digits.split_once(['e', 'E']).map_or((digits, None), |(m, e)| (m, Some(e)));
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let push = |s: u64, d: u8| s.checked_mul(10)?.checked_add(u64::from(d.wrapping_sub(b'0')));
    let (mut significand, mut exponent, mut full) = (0u64, 0i32, false);
    // Integer digits past the u64 range are dropped, each one raising the exponent.
    for d in int.bytes() {
        match push(significand, d).filter(|_| !full) {
            Some(s) => significand = s,
            None => (full, exponent) = (true, exponent.saturating_add(1)),
        }
    }
    // Fraction digits from the first one that does not fit on are dropped.
    for d in frac.bytes() {
        let Some(s) = push(significand, d) else { break };
        (significand, exponent) = (s, exponent.saturating_sub(1));
    }
    if let Some(e) = exp {
        let (up, e) = e.strip_prefix('-').map_or((true, e.trim_start_matches('+')), |rest| (false, rest));
        let mut n = 0i32;
        for d in e.bytes() {
            let Some(m) = n.checked_mul(10).and_then(|m| m.checked_add(i32::from(d.wrapping_sub(b'0')))) else {
                // An exponent past i32: zero, or out of range.
                return (significand == 0 || !up).then_some(if negative { -0.0 } else { 0.0 });
            };
            n = m;
        }
        exponent = if up { exponent.saturating_add(n) } else { exponent.saturating_sub(n) };
    }
    let mut f = significand as f64; // the first rounding
    loop {
        match pow10(exponent.unsigned_abs()) {
            Some(p) if exponent >= 0 => {
                f *= p;
                if f.is_infinite() {
                    return None;
                }
                break;
            }
            Some(p) => {
                f /= p;
                break;
            }
            None if f == 0.0 => break,
            None if exponent >= 0 => return None,
            None => (f, exponent) = (f / 1e308, exponent + 308),
        }
    }
    Some(if negative { -f } else { f })
}

/// The double nearest 10^k, for k up to 308 (`serde_json`'s table).
fn pow10(k: u32) -> Option<f64> {
    match k {
        // Exact: every power on the way is a double.
        0..=22 => Some((0..k).fold(1.0, |p, _| p * 10.0)),
        23..=308 => format!("1e{k}").parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_serde_json_reads_them_without_float_roundtrip() {
        // Sixteen digits past 2^53: two roundings, one unit in the last place off.
        assert_eq!(package_reading("-11.781757952769475"), Some(-11.781757952769476));
        for (text, value) in [("-4.178808654315618", -4.178808654315618), ("0.5", 0.5), ("-0", -0.0), ("42", 42.0)] {
            assert_eq!(package_reading(text).map(f64::to_bits), Some(f64::to_bits(value)), "{text}");
        }
        assert_eq!(package_reading("1.5e2"), Some(150.0));
        assert_eq!(package_reading("25E-1"), Some(2.5));
        assert_eq!(package_reading("1e400"), None);
        assert_eq!(package_reading("1e-400"), Some(0.0));
        assert_eq!(package_reading("-1e-99999999999").map(f64::to_bits), Some(f64::to_bits(-0.0)));
        assert_eq!(package_reading("1e99999999999"), None);
        assert_eq!(package_reading("0.0"), Some(0.0));
    }

    #[test]
    fn only_numbers_read_otherwise_are_rewritten_and_strings_are_left_alone() {
        let same = br#"{"a":[0.5,-20.0,3],"b":"-11.781757952769475","c\"1.5":null}"#;
        assert!(matches!(as_the_package_reads(same), Cow::Borrowed(_)));
        let file = br#"{"vocab":[["\"x-1.5",-11.781757952769475],["y",-4.178808654315618]]}"#;
        let read = as_the_package_reads(file);
        assert_eq!(
            std::str::from_utf8(&read).unwrap(),
            r#"{"vocab":[["\"x-1.5",-1.1781757952769476e1],["y",-4.178808654315618]]}"#
        );
        let v: serde_json::Value = serde_json::from_slice(&read).unwrap();
        assert_eq!(v["vocab"][0][1].as_f64(), Some(-11.781757952769476));
    }
}
