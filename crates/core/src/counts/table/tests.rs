//! Counts tables: what a file holds gives what the text gives.

use super::*;
use crate::counts::{count_table, PositionalCounts, TableParams};
use crate::test_support::whitespace;

fn params(mode: Mode, min_support: usize, top_k: Option<usize>) -> TableParams {
    TableParams { mode, max_len: 512, min_support, top_k }
}

fn through_csv(t: &CountsTable, mode: Mode) -> CountsTable {
    let mut out = Vec::new();
    write_csv(t, mode, &mut out).unwrap();
    read_table_bytes(&out).unwrap()
}

const TEXT: [&str; 7] = ["b a c", "a b", "<pad> x", "c", "   ", "d \"q\",r a b c", "b b b b b b"];

#[test]
fn a_written_table_analyses_like_the_text_in_both_modes() {
    let t = count_table(&TEXT, &whitespace(), 512, &mut |_| {});
    for mode in [Mode::Condition, Mode::Pad] {
        for top_k in [None, Some(2), Some(3)] {
            let p = params(mode, 1, top_k);
            let direct = PositionalCounts::from_table(&t, &p).unwrap();
            let file = PositionalCounts::from_table(&through_csv(&t, mode), &p).unwrap();
            let expected_sequences = if mode == Mode::Pad { Some(7) } else { None };
            assert_eq!(direct.sequences, Some(7));
            assert_eq!(file.sequences, expected_sequences, "{mode:?}");
            assert_eq!(PositionalCounts { sequences: direct.sequences, ..file }, direct, "{mode:?} {top_k:?}");
        }
    }
    // A literal `<pad>` is one type with the padding in pad mode, a token in condition mode.
    let pad = PositionalCounts::from_table(&t, &params(Mode::Pad, 1, None)).unwrap();
    assert_eq!(pad.vocab.iter().filter(|v| *v == PAD).count(), 1);
    assert_eq!(pad.support_all, vec![7; 6]);
    let cond = PositionalCounts::from_table(&t, &params(Mode::Condition, 1, None)).unwrap();
    assert_eq!(cond.support_all, vec![6, 5, 3, 2, 2, 1]);
    assert_eq!(cond.vocab[..4], ["b", "a", "c", "<pad>"]);
}

#[test]
fn quoting_tabs_gzip_and_bad_rows() {
    let t = count_table(&TEXT, &whitespace(), 512, &mut |_| {});
    let mut csv = Vec::new();
    write_csv(&t, Mode::Condition, &mut csv).unwrap();
    let text = String::from_utf8(csv.clone()).unwrap();
    assert!(text.starts_with("position,token,count,first\n"), "{text}");
    assert!(text.contains("\"\"\"q\"\",r\""), "RFC 4180 quoting: {text}");
    let tsv = "token\tcount\tposition\na\t3\t0\nb\t2\t1\nb\t1\t1\n";
    let r = read_table_bytes(tsv.as_bytes()).unwrap();
    assert_eq!(r.types, ["a", "b"]);
    assert_eq!(r.cells, vec![(0, 3), (1 << 32 | 1, 3)], "duplicate rows add");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &csv).unwrap();
    assert_eq!(read_table_bytes(&gz.finish().unwrap()).unwrap(), read_table_bytes(&csv).unwrap());
    let e = read_table_bytes(b"pos,token,count\n0,a,1\n").unwrap_err().to_string();
    assert!(e.contains("\"position\"") || e.contains("position"), "{e}");
    let e = read_table_bytes(b"position,token,count\n0,a,1\n1,b,-2\n").unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("count \"-2\""), "{e}");
    let e = read_table_bytes(b"position,token,count\n99999999999,a,1\n").unwrap_err().to_string();
    assert!(e.contains("beyond the largest"), "{e}");
    let e = read_table_bytes(b"position,token,count\n0,a,18014398509481985\n").unwrap_err().to_string();
    assert!(e.contains("beyond 2^53"), "{e}");
    // Each count fits, their sum at a position does not.
    let big = b"position,token,count\n0,a,9007199254740992\n0,b,9007199254740992\n1,a,1\n1,b,1\n";
    let t = read_table_bytes(big).unwrap();
    let e = PositionalCounts::from_table(&t, &params(Mode::Condition, 1, None)).unwrap_err().to_string();
    assert!(e.contains("position 0 counts") && e.contains("beyond 2^53"), "{e}");
    let e = read_table_bytes(b"position,token,count,first\n0,a,1,x\n").unwrap_err().to_string();
    assert!(e.contains("line 2") && e.contains("first \"x\""), "{e}");
    let e = read_table_bytes(b"PAR1 not really parquet").unwrap_err().to_string();
    assert!(e.starts_with("counts table: not a readable Parquet file"), "{e}");
}

#[test]
fn appended_parts_and_unions_add_counts() {
    let (a, b) = TEXT.split_at(3);
    let whole = count_table(&TEXT, &whitespace(), 512, &mut |_| {});
    let mut files = through_csv(&count_table(a, &whitespace(), 512, &mut |_| {}), Mode::Pad);
    files.append(through_csv(&count_table(b, &whitespace(), 512, &mut |_| {}), Mode::Pad));
    for top_k in [None, Some(2)] {
        let p = params(Mode::Pad, 1, top_k);
        assert_eq!(
            PositionalCounts::from_table(&files, &p).unwrap(),
            PositionalCounts::from_table(&whole, &p).unwrap()
        );
    }
    // Two halves of one file's rows, unioned, give the file.
    let mut csv = Vec::new();
    write_csv(&whole, Mode::Condition, &mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (h, rest) = (lines[0], &lines[1..]);
    let (x, y) = rest.split_at(rest.len() / 2);
    let part = |rows: &[&str]| read_table_bytes(format!("{h}\n{}\n", rows.join("\n")).as_bytes()).unwrap();
    let mut u = part(y);
    u.union(part(x));
    let p = params(Mode::Condition, 1, Some(3));
    assert_eq!(
        PositionalCounts::from_table(&u, &p).unwrap(),
        PositionalCounts::from_table(&read_table_bytes(text.as_bytes()).unwrap(), &p).unwrap()
    );
}

#[test]
fn without_first_keys_types_order_by_position_then_bytes() {
    let t = read_table_bytes(b"position,token,count\n0,zeta,3\n0,alpha,2\n1,beta,3\n1,alpha,1\n").unwrap();
    let c = PositionalCounts::from_table(&t, &params(Mode::Condition, 1, Some(1))).unwrap();
    // alpha, zeta and beta (3 each): alpha wins on lowest position, then bytes.
    assert_eq!(c.vocab, ["alpha", "<other>"]);
    let c = PositionalCounts::from_table(&t, &params(Mode::Condition, 1, None)).unwrap();
    assert_eq!(c.vocab, ["alpha", "zeta", "beta"]);
    let e = PositionalCounts::from_table(&t, &params(Mode::Pad, 1, None)).unwrap_err().to_string();
    assert!(e.contains("pad mode needs a table counted in pad mode"), "{e}");
    assert_eq!(t.counted_mode(), Mode::Condition);
}

#[test]
fn the_binary_form_round_trips() {
    let t = count_table(&TEXT, &whitespace(), 16, &mut |_| {});
    assert_eq!(CountsTable::from_bytes(&t.to_bytes()).unwrap(), t);
    let mut e = CountsTable::empty_text(16);
    e.append(t.clone());
    assert_eq!(e, t, "appending to an empty count gives the table");
    assert!(CountsTable::from_bytes(b"\xff\xff").is_err());
    let bytes = t.to_bytes();
    assert!(CountsTable::from_bytes(&bytes[..bytes.len() - 1]).is_err(), "a cell cut short");
    assert!(CountsTable::from_bytes(&[&[255; 8], &bytes[8..]].concat()).is_err(), "a wrong length");
    let mut unsorted = t.clone();
    unsorted.cells.swap(0, 1);
    let mut unknown = t.clone();
    unknown.cells.last_mut().unwrap().0 |= 0xffff;
    for broken in [unsorted, unknown] {
        assert!(CountsTable::from_bytes(&broken.to_bytes()).is_err(), "{:?}", &broken.cells[..2]);
    }
}

#[test]
fn joined_lows_are_the_record_lows_of_both() {
    // Record lows of pseudo-random (sequence, position) lists, joined at every kind of
    // overlap: one list after the other, interleaved, either one empty.
    let mut s = 7u64;
    let mut next = |m: u64| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) % m
    };
    for case in 0..400 {
        let mut list = |len: u64, from: u64| {
            let v: Vec<(u64, u32)> = (0..next(len)).map(|_| (from + next(50), next(30) as u32)).collect();
            record_lows(v)
        };
        let mine = list(12, 0);
        let lows = list(12, if case % 2 == 0 { 60 } else { 0 });
        let offset = next(3) * 40;
        let want = record_lows(mine.iter().copied().chain(lows.iter().map(|&(q, p)| (q + offset, p))).collect());
        assert_eq!(join_lows(mine, lows, offset), want, "case {case}");
    }
}

#[test]
fn a_table_appended_to_an_empty_one_is_what_adding_it_gives() {
    // `append` takes a table whole into an empty one (the page's first helper part): the
    // same table as the general addition gives, which then adds the next part alike.
    let (a, b) = TEXT.split_at(4);
    let part = |t: &[&str]| count_table(t, &whitespace(), 512, &mut |_| {});
    for first in [part(a), through_csv(&part(a), Mode::Pad), CountsTable::empty_text(512)] {
        let mut taken = CountsTable::empty_text(512);
        taken.append(first.clone());
        let mut added = CountsTable::empty_text(512);
        let text = added.text.take().zip(first.text.clone()).map(|(mut x, y)| {
            x.append(y);
            x
        });
        added.combine(first.clone(), 0);
        added.text = text;
        assert_eq!(taken, added);
        assert_eq!((&taken.types, &taken.cells, &taken.firsts), (&first.types, &first.cells, &first.firsts));
        taken.append(part(b));
        added.append(part(b));
        assert_eq!(taken, added);
    }
    let mut whole = CountsTable::empty_text(512);
    whole.append(part(a));
    whole.append(part(b));
    let p = params(Mode::Pad, 1, None);
    assert_eq!(
        PositionalCounts::from_table(&whole, &p).unwrap(),
        PositionalCounts::from_table(&count_table(&TEXT, &whitespace(), 512, &mut |_| {}), &p).unwrap()
    );
    // A part of blank lines only (sequences, no type): what follows is shifted past them,
    // so `<pad>` (first at sequence 0) stays ahead of "1" (first at sequence 1).
    let mut blank = part(&["   "]);
    blank.append(part(&["1 2"]));
    assert_eq!(blank, part(&["   ", "1 2"]));
    let vocab = PositionalCounts::from_table(&blank, &p).unwrap().vocab;
    assert_eq!(vocab[..2], ["<pad>", "1"]);
}
