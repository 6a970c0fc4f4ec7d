#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

//! Files that lie about themselves get a message naming their actual defect:
//! each test asserts on the message, not only on the failure.

use posgeo::learned_tables::read_table;
use posgeo::{Corpus, InputFormat, PosgeoError};

fn table_error(bytes: &[u8]) -> String {
    read_table(bytes, None).unwrap_err().to_string()
}

/// A version-1 `.npy` header for `descr` and `shape`, padded as NumPy pads it.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape}), }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn npy_promising_more_than_the_file_holds() {
    let e = table_error(&npy("<f8", "10000000000000, 1", &[0; 64]));
    assert!(
        e.contains("header declares 10000000000000×1 float64 values (80.0 TB), but the file holds 64 bytes"),
        "{e}"
    );
    let e = table_error(&npy("<f4", "18446744073709551615, 4", &[]));
    assert!(e.contains("more values than any file can hold"), "{e}");
    let e = table_error(&npy("<i8", "2, 2", &[0; 32]));
    assert!(e.contains("dtype <i8: float64 or float32 expected"), "{e}");
    // An honest file still reads.
    let ok: Vec<u8> = [1.0f64, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(read_table(&npy("<f8", "2, 2", &ok), None).unwrap(), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
}

fn safetensors(header: &str, data: &[u8], declared_len: Option<u64>) -> Vec<u8> {
    let mut out = declared_len.unwrap_or(header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn safetensors_that_lie_about_their_sizes() {
    let header = r#"{"wpe.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}}"#;
    let e = table_error(&safetensors(header, &[0; 16], Some(1 << 60)));
    assert!(e.contains("looks like a safetensors file") && e.contains("header length field says 1.2 EB"), "{e}");
    let e = table_error(&safetensors(header, &[0; 8], None));
    assert!(e.contains("runs past the end of the file") || e.contains("data offsets"), "{e}");
    let overlap = r#"{"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[8,24]}}"#;
    let e = table_error(&safetensors(overlap, &[0; 24], None));
    assert!(e.contains("offsets overlap another tensor's"), "{e}");
    let wrong = r#"{"a":{"dtype":"F32","shape":[3,2],"data_offsets":[0,16]}}"#;
    let e = table_error(&safetensors(wrong, &[0; 16], None));
    assert!(e.contains("shape × dtype does not match"), "{e}");
}

#[test]
fn csv_with_a_quote_that_never_closes() {
    let mut csv = b"id,text\n1,a b c\n2,d e f\n3,\"g h\n".to_vec();
    for k in 0..50 {
        csv.extend_from_slice(format!("{k},x y z\n").as_bytes());
    }
    let fmt = InputFormat::Csv { delimiter: b',', column: Some("text".into()), has_header: true };
    let e = Corpus::read(&csv, &fmt, false).unwrap_err();
    assert_eq!(e, PosgeoError::UnclosedQuote { line: 4 });
    assert!(e.to_string().contains("line 4: a quoted field opens here and is never closed"));
}

/// Found by `cargo fuzz run tables` (fuzz/artifacts/tables/crash-bc5f8436…): an `.npy` of
/// shape (0, 2) read as an empty table instead of an error. Empty tensors are errors too.
#[test]
fn fuzz_regression_empty_arrays_are_errors() {
    let e = table_error(&npy("<f8", "0, 2", &[0; 16]));
    assert!(e.contains(".npy array of shape 0×2 holds no values"), "{e}");
    let e = table_error(&safetensors(r#"{"pos":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]}}"#, &[], None));
    assert!(e.contains("shape 0×4 holds no values"), "{e}");
}

/// Found by `cargo fuzz run tables`: a header full of string escapes kept the `npyz` crate's
/// Python-literal parser busy for minutes (the worker would hang). Headers are now read by a
/// linear scan, and oversized ones refused.
#[test]
fn fuzz_regression_pathological_npy_headers_are_read_at_once() {
    let escapes = format!("'x': '{}', ", "\\'".repeat(20_000));
    let t = read_table(&npy("<f8", &format!("2, 2), {escapes}'y': (1"), &[0; 32]), None).unwrap();
    assert_eq!(t, vec![vec![0.0; 2]; 2], "read at once, the extra keys ignored");
    let mut huge = b"\x93NUMPY\x02\x00".to_vec();
    huge.extend_from_slice(&(1u32 << 20).to_le_bytes());
    huge.extend_from_slice(&vec![b' '; 1 << 20]);
    let e = table_error(&huge);
    assert!(e.contains("is not a NumPy header"), "{e}");
}
