//! Counts tables on disk: CSV with a header row and RFC 4180 quoting (what DuckDB's and
//! Spark's writers produce; comma or tab separated, gzip allowed) and Parquet (INT32/INT64
//! integers, UTF-8 tokens; snappy, gzip or uncompressed pages; natively only — the page
//! asks for CSV). posgeo writes CSV.

use super::{record_lows, CountsTable, Mode, PAD};
use crate::error::{PosgeoError, Result};
use rustc_hash::FxHashMap;

/// The largest position a table may hold (positions index n×n matrices far smaller).
const MAX_POSITION: u64 = 1 << 20;
/// The largest count (and N_i): counts are used as f64, exact up to 2^53.
pub(crate) const MAX_COUNT: u64 = 1 << 53;

/// The format a table is written in, from the output's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// CSV.
    Csv,
    /// Gzip-compressed CSV (`.gz`).
    CsvGz,
}

impl TableFormat {
    /// `.gz` names are compressed.
    pub fn from_name(name: &str) -> Self {
        if name.to_lowercase().ends_with(".gz") {
            TableFormat::CsvGz
        } else {
            TableFormat::Csv
        }
    }
}

/// Rows gathered from a file: interned tokens, cells and `first` keys.
#[derive(Default)]
struct Builder {
    index: FxHashMap<String, u32>,
    table: CountsTable,
}

impl Builder {
    fn add(&mut self, pos: u64, token: &str, count: u64, first: Option<u64>) -> std::result::Result<(), String> {
        if pos >= MAX_POSITION {
            return Err(format!("position {pos} is beyond the largest supported ({})", MAX_POSITION - 1));
        }
        if count == 0 {
            return Ok(());
        }
        if count > MAX_COUNT {
            return Err(format!("count {count} is beyond 2^53, the largest count posgeo computes with exactly"));
        }
        let id = match self.index.get(token) {
            Some(&id) => id,
            None => {
                let id = self.table.types.len() as u32;
                self.index.insert(token.to_string(), id);
                self.table.types.push(token.to_string());
                self.table.firsts.push(Vec::new());
                id
            }
        };
        self.table.cells.push((pos << 32 | id as u64, count));
        if let Some(f) = first {
            self.table.firsts[id as usize].push((f, pos as u32));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<CountsTable> {
        let t = &mut self.table;
        t.cells.sort_unstable();
        t.cells.dedup_by(|b, a| {
            let same = a.0 == b.0;
            if same {
                a.1 = a.1.saturating_add(b.1);
            }
            same
        });
        for f in &mut t.firsts {
            *f = record_lows(std::mem::take(f));
        }
        if t.cells.is_empty() {
            return Err(PosgeoError::BadTable("it has no rows with a count above 0".into()));
        }
        Ok(self.table)
    }
}

/// Whether a file's first bytes are a counts table's: Parquet (it is read as a table), or a
/// header row (gzip allowed) with the columns `position`, `token` and `count`.
pub fn looks_like_table(head: &[u8]) -> bool {
    if head.starts_with(b"PAR1") {
        return true;
    }
    let text;
    let head = if crate::corpus::is_gzip(head) {
        text = crate::corpus::gunzip_head(head, 4096);
        &text[..]
    } else {
        head
    };
    let line = head.split(|&b| b == b'\n').next().unwrap_or(b"");
    let line = String::from_utf8_lossy(line).to_lowercase();
    let fields: Vec<&str> = line.split([',', '\t']).map(|f| f.trim().trim_matches('"')).collect();
    ["position", "token", "count"].iter().all(|c| fields.contains(c))
}

/// Reads a counts table from a file's bytes: Parquet (magic `PAR1`), else CSV or TSV,
/// gzip-compressed or not.
pub fn read_table_bytes(bytes: &[u8]) -> Result<CountsTable> {
    if bytes.starts_with(b"PAR1") {
        // The Parquet reader is a large third-party parser: should it panic on a lying file,
        // that is a message too, never a crash.
        #[cfg(not(target_arch = "wasm32"))]
        return parquet_guarded(bytes);
        #[cfg(target_arch = "wasm32")]
        return Err(PosgeoError::BadTable(
            "Parquet tables are read by the command line (posgeo analyze --counts); here, upload the table as \
             CSV (gzip allowed), e.g. DuckDB's COPY … TO 'counts.csv.gz'"
                .into(),
        ));
    }
    if crate::corpus::is_gzip(bytes) {
        return read_csv(&crate::corpus::gunzip_within_budget(bytes)?);
    }
    read_csv(bytes)
}

fn bad(line: u64, message: impl Into<String>) -> PosgeoError {
    PosgeoError::BadRecord { line: line as usize, message: message.into() }
}

/// The index of each of `position`, `token`, `count` and (optional) `first` in a header.
fn columns(names: &[String]) -> Result<[Option<usize>; 4]> {
    let find = |n: &str| names.iter().position(|h| h.trim().eq_ignore_ascii_case(n));
    let out = [find("position"), find("token"), find("count"), find("first")];
    for (k, name) in ["position", "token", "count"].iter().enumerate() {
        if out[k].is_none() {
            return Err(PosgeoError::MissingColumn {
                column: (*name).into(),
                available: format!(
                    "{} (a counts table has the columns position, token, count and optionally first)",
                    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
                ),
            });
        }
    }
    Ok(out)
}

fn read_csv(bytes: &[u8]) -> Result<CountsTable> {
    let first_line = bytes.split(|&b| b == b'\n').next().unwrap_or(b"");
    let delimiter = if !first_line.contains(&b',') && first_line.contains(&b'\t') { b'\t' } else { b',' };
    let mut rdr = csv::ReaderBuilder::new().delimiter(delimiter).has_headers(true).from_reader(bytes);
    let names: Vec<String> = match rdr.byte_headers() {
        Ok(h) => h.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect(),
        Err(e) => return Err(PosgeoError::Csv(e.to_string())),
    };
    let [pos_col, tok_col, count_col, first_col] = columns(&names)?;
    let int = |rec: &csv::ByteRecord, col: Option<usize>, what: &str, line: u64| -> Result<Option<u64>> {
        let Some(raw) = col.and_then(|c| rec.get(c)) else { return Ok(None) };
        let text = std::str::from_utf8(raw).unwrap_or("").trim();
        if text.is_empty() && what == "first" {
            return Ok(None);
        }
        text.parse::<u64>().map(Some).map_err(|_| bad(line, format!("{what} {text:?} is not a whole number ≥ 0")))
    };
    let mut b = Builder::default();
    for rec in rdr.byte_records() {
        let rec = rec.map_err(|e| PosgeoError::Csv(e.to_string()))?;
        let line = rec.position().map_or(0, |p| p.line());
        let token = tok_col.and_then(|c| rec.get(c)).ok_or_else(|| bad(line, "the row has no token field"))?;
        let token = std::str::from_utf8(token).map_err(|_| bad(line, "the token is not valid UTF-8"))?;
        let pos = int(&rec, pos_col, "position", line)?.ok_or_else(|| bad(line, "the row has no position"))?;
        let count = int(&rec, count_col, "count", line)?.ok_or_else(|| bad(line, "the row has no count"))?;
        let first = int(&rec, first_col, "first", line)?;
        b.add(pos, token, count, first).map_err(|m| bad(line, m))?;
    }
    b.finish()
}

/// [`read_parquet`], a panic inside the Parquet crate turned into a message (and kept off
/// standard error while it runs).
#[cfg(not(target_arch = "wasm32"))]
fn parquet_guarded(bytes: &[u8]) -> Result<CountsTable> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(|| read_parquet(bytes));
    std::panic::set_hook(hook);
    result.unwrap_or_else(|_| {
        Err(PosgeoError::BadTable("not a readable Parquet file (the Parquet reader failed on it)".into()))
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn read_parquet(bytes: &[u8]) -> Result<CountsTable> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let err = |e: parquet::errors::ParquetError| PosgeoError::BadTable(format!("not a readable Parquet file: {e}"));
    let bad = |row: u64, m: String| PosgeoError::BadTable(format!("row {row}: {m}"));
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes)).map_err(err)?;
    let names: Vec<String> =
        reader.metadata().file_metadata().schema_descr().columns().iter().map(|c| c.name().to_string()).collect();
    let [pos_col, tok_col, count_col, first_col] = columns(&names)?;
    let int = |f: &Field| match f {
        Field::Byte(v) => u64::try_from(*v).ok(),
        Field::Short(v) => u64::try_from(*v).ok(),
        Field::Int(v) => u64::try_from(*v).ok(),
        Field::Long(v) => u64::try_from(*v).ok(),
        Field::UByte(v) => Some(*v as u64),
        Field::UShort(v) => Some(*v as u64),
        Field::UInt(v) => Some(*v as u64),
        Field::ULong(v) => Some(*v),
        // DuckDB writes sums as DOUBLE or DECIMAL(38,0) unless cast: whole values only.
        Field::Double(v) if *v >= 0.0 && v.fract() == 0.0 && *v < 9.0e15 => Some(*v as u64),
        Field::Decimal(d) if d.scale() == 0 && d.data().len() <= 16 => {
            let bytes = d.data();
            let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
            let mut buf = [if negative { 0xff } else { 0 }; 16];
            buf[16 - bytes.len()..].copy_from_slice(bytes);
            u64::try_from(i128::from_be_bytes(buf)).ok()
        }
        _ => None,
    };
    let mut b = Builder::default();
    for (row_no, row) in reader.get_row_iter(None).map_err(err)?.enumerate() {
        let row = row.map_err(err)?;
        let line = row_no as u64 + 1;
        let fields: Vec<&Field> = row.get_column_iter().map(|(_, f)| f).collect();
        let get = |c: Option<usize>| c.and_then(|c| fields.get(c).copied());
        let whole = |c: Option<usize>, what: &str| {
            get(c).and_then(int).ok_or_else(|| bad(line, format!("{what} is not a whole number ≥ 0")))
        };
        let token = match get(tok_col) {
            Some(Field::Str(s)) => s.as_str(),
            Some(Field::Bytes(b)) => b.as_utf8().map_err(|_| bad(line, "the token is not valid UTF-8".into()))?,
            _ => return Err(bad(line, "the token is not text".into())),
        };
        let first = match get(first_col) {
            None | Some(Field::Null) => None,
            Some(f) => Some(int(f).ok_or_else(|| bad(line, "first is not a whole number ≥ 0".into()))?),
        };
        b.add(whole(pos_col, "position")?, token, whole(count_col, "count")?, first).map_err(|m| bad(line, m))?;
    }
    b.finish()
}

/// Writes a table as CSV with the header `position,token,count,first` (RFC 4180 quoting),
/// rows by position then type id; in mode `pad` a text tally's `<pad>` rows are included
/// (at every position below the count's `max_len`, so that tables of parts add up).
/// `first` is written on each type's record lows and left empty elsewhere.
pub fn write_csv(table: &CountsTable, mode: Mode, out: &mut dyn std::io::Write) -> Result<()> {
    let io = |e: csv::Error| PosgeoError::Csv(format!("cannot write the table: {e}"));
    let pads = table.pads(mode);
    let mut w = csv::WriterBuilder::new().from_writer(out);
    w.write_record(["position", "token", "count", "first"]).map_err(io)?;
    let lows = |id: u32| match &pads {
        Some(p) if p.id == id => &p.firsts[..],
        _ => table.firsts.get(id as usize).map_or(&[][..], |f| &f[..]),
    };
    let end = pads.as_ref().map_or(0, |p| p.counts.len()).max(table.positions());
    for (pos, row) in table.rows(end, pads.as_ref()).iter().enumerate() {
        for &(id, c) in row {
            let name = table.types.get(id as usize).map_or(PAD, |s| s.as_str());
            let first = lows(id).iter().find(|&&(_, p)| p as usize == pos).map(|&(s, _)| s.to_string());
            w.write_record([pos.to_string().as_str(), name, &c.to_string(), first.as_deref().unwrap_or("")])
                .map_err(io)?;
        }
    }
    w.flush().map_err(|e| PosgeoError::Csv(format!("cannot write the table: {e}")))
}
