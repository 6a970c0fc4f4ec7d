use super::*;
use safetensors::tensor::TensorView;
use safetensors::Dtype;

fn file(tensors: &[(&str, Dtype, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
    let views: Vec<(String, TensorView)> =
        tensors.iter().map(|(n, d, s, b)| (n.to_string(), TensorView::new(*d, s.clone(), b).unwrap())).collect();
    safetensors::serialize(views, None).unwrap()
}

#[test]
fn text_and_csv_rows() {
    assert_eq!(read_table(b"1, 2 3\n\n4\t5,6\n", None).unwrap(), vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]]);
    assert!(read_table(b"1 x\n", None).unwrap_err().to_string().contains("line 1"));
    assert!(read_table(b"\n \n", None).is_err());
}

/// A version-1 `.npy` file as `np.save` writes it.
fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
        if fortran { "True" } else { "False" }
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn npy_float64_float32_c_and_fortran() {
    let want = vec![vec![0.5, -1.25, 3.0], vec![0.0, 2.5, -0.75]];
    let c: Vec<f64> = want.concat();
    let f: Vec<f64> = (0..3).flat_map(|j| [want[0][j], want[1][j]]).collect();
    let b64 = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let b32 = |v: &[f64]| v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect::<Vec<u8>>();
    assert_eq!(read_table(&npy("<f8", false, "(2, 3)", &b64(&c)), None).unwrap(), want);
    assert_eq!(read_table(&npy("<f8", true, "(2, 3)", &b64(&f)), None).unwrap(), want);
    assert_eq!(read_table(&npy("<f4", false, "(2, 3)", &b32(&c)), None).unwrap(), want);
    let e = read_table(&npy("<f8", false, "(6,)", &b64(&c)), None).unwrap_err().to_string();
    assert!(e.contains("not rows × columns"), "{e}");
    let e = read_table(&npy("<i8", false, "(2, 3)", &b64(&c)), None).unwrap_err().to_string();
    assert!(e.contains("<i8"), "{e}");
}

#[test]
fn safetensors_in_every_float_width() {
    let vals = [0.5f64, -1.25, 3.0, 0.0, 2.5, -0.75];
    let f64s: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let f32s: Vec<u8> = vals.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect();
    let f16s: Vec<u8> = vals.iter().flat_map(|&v| half::f16::from_f64(v).to_le_bytes()).collect();
    let bf16s: Vec<u8> = vals.iter().flat_map(|&v| half::bf16::from_f64(v).to_le_bytes()).collect();
    let want = vec![vec![0.5, -1.25, 3.0], vec![0.0, 2.5, -0.75]];
    for (dtype, bytes) in [(Dtype::F64, f64s), (Dtype::F32, f32s), (Dtype::F16, f16s), (Dtype::BF16, bf16s)] {
        let f = file(&[("wpe.weight", dtype, vec![2, 3], bytes)]);
        assert_eq!(read_table(&f, None).unwrap(), want, "{dtype:?}");
    }
}

#[test]
fn safetensors_tensor_choice() {
    let two: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let four: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let f = file(&[
        ("h.0.attn.bias", Dtype::F32, vec![2], two.clone()),
        ("wte.weight", Dtype::F32, vec![1, 2], two.clone()),
        ("transformer.wpe.weight", Dtype::F32, vec![2, 2], four.clone()),
    ]);
    // The positional one is found by its name; any 2-D one can be named.
    assert_eq!(read_table(&f, None).unwrap(), vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
    assert_eq!(read_table(&f, Some("wte.weight")).unwrap(), vec![vec![1.0, 2.0]]);
    assert_eq!(safetensors_matrices(&f).unwrap().len(), 2);
    assert_eq!(pick_positional(&safetensors_matrices(&f).unwrap()), Some(0));
    let header = br#"{"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},"a":{"dtype":"F32","shape":[2,5],"data_offsets":[12,52]}}"#;
    assert_eq!(header_matrices(header), Some(vec![Candidate { name: "a".into(), shape: [2, 5], float: true }]));
    assert_eq!(header_matrices(b"not json"), None);
    let e = read_table(&f, Some("h.0.attn.bias")).unwrap_err().to_string();
    assert!(e.contains("not rows × columns"), "{e}");
    let e = read_table(&f, Some("nope")).unwrap_err().to_string();
    assert!(e.contains("transformer.wpe.weight (2×2)"), "{e}");
    // Two candidates and no name: the message lists them.
    let g = file(&[("a", Dtype::F32, vec![1, 2], two.clone()), ("b", Dtype::F32, vec![2, 2], four)]);
    assert!(read_table(&g, None).unwrap_err().to_string().contains("a (1×2), b (2×2)"));
    let ints = file(&[("pos", Dtype::I32, vec![1, 2], two.clone())]);
    assert!(read_table(&ints, None).unwrap_err().to_string().contains("holds no floating-point 2-D tensor"));
    assert!(read_table(&ints, Some("pos")).unwrap_err().to_string().contains("I32"));
}

/// A BERT-family checkpoint: the integer `position_ids` buffer (2-D, named like "pos") is not a
/// candidate, so the float table is found without a name.
#[test]
fn bert_checkpoints_find_their_position_table() {
    let ids: Vec<u8> = (0..4i64).flat_map(|v| v.to_le_bytes()).collect();
    let table: Vec<u8> = (0..8).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let word: Vec<u8> = (0..6).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let f = file(&[
        ("embeddings.position_ids", Dtype::I64, vec![1, 4], ids),
        ("embeddings.position_embeddings.weight", Dtype::F32, vec![4, 2], table),
        ("embeddings.word_embeddings.weight", Dtype::F32, vec![3, 2], word.clone()),
        ("encoder.layer.0.attention.self.query.weight", Dtype::F32, vec![3, 2], word.clone()),
    ]);
    assert_eq!(read_table(&f, None).unwrap().len(), 4);
    // Two tables named like position tables: only those two are listed.
    let two = file(&[
        ("a.position_embeddings.weight", Dtype::F32, vec![3, 2], word.clone()),
        ("b.pos_embed", Dtype::F32, vec![3, 2], word.clone()),
        ("c.word_embeddings.weight", Dtype::F32, vec![3, 2], word),
    ]);
    let e = read_table(&two, None).unwrap_err().to_string();
    assert!(
        e.contains("name one: a.position_embeddings.weight (3×2), b.pos_embed (3×2)") && !e.contains("c.word"),
        "{e}"
    );
}

/// `.npz` archives as `np.savez` writes them (stored or deflated members).
#[test]
fn npz_archives() {
    use std::io::Write;
    let member = |rows: usize| {
        let data: Vec<u8> = (0..rows * 2).flat_map(|v| (v as f64).to_le_bytes()).collect();
        npy("<f8", false, &format!("({rows}, 2)"), &data)
    };
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, rows) in [("wpe.npy", 5), ("wte.npy", 3)] {
            z.start_file(name, opts).unwrap();
            z.write_all(&member(rows)).unwrap();
        }
        z.finish().unwrap();
    }
    let bytes = buf.into_inner();
    assert_eq!(format_of(&bytes, bytes.len()), TableFormat::Npz);
    assert_eq!(read_table(&bytes, None).unwrap().len(), 5, "wpe is the position table");
    assert_eq!(read_table(&bytes, Some("wte")).unwrap(), vec![vec![0.0, 1.0], vec![2.0, 3.0], vec![4.0, 5.0]]);
    let e = read_table(&bytes, Some("nope")).unwrap_err().to_string();
    assert!(e.contains("no 2-D array \"nope\"") && e.contains("wpe (5×2)"), "{e}");
    let e = read_table(b"PK\x03\x04 not really", None).unwrap_err().to_string();
    assert!(e.contains(".npz: not a readable zip archive"), "{e}");
}

#[test]
fn a_bundle_of_files_is_one_table_each_named_by_its_file() {
    let csv = b"0 1\n1 0\n2 2\n";
    let tsv = b"1\t2\t3\n4\t5\t6\n7\t8\t9\n";
    let b = bundle(&[("a.csv", csv), ("b.txt", tsv)]);
    let tables = read_named(&b, "2 files", &[]).unwrap();
    let names: Vec<&str> = tables.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a.csv", "b.txt"]);
    assert_eq!(tables[0].1, read_table(csv, None).unwrap());
    assert_eq!(tables[1].1, read_table(tsv, None).unwrap());
    let mut cut = b.clone();
    cut.truncate(b.len() - 3);
    let e = read_named(&cut, "x", &[]).unwrap_err().to_string();
    assert!(e.contains("b.txt") && e.contains("declares"), "{e}");
    let e = read_named(&b[..11], "x", &[]).unwrap_err().to_string();
    assert!(e.contains("ends in the middle"), "{e}");
}
