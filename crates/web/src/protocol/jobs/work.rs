//! The helper's jobs that read what travels beside them ([`super::Beside`]): counting a part of
//! an upload (with a heartbeat, [`super::Answer::Alive`], as it goes), the spectrum of D, a
//! SMACOF share of D's rows, and encodings measured against D.

use super::{Answer, Beside, CountPart, JobError};
use posgeo::analysis::{measure_against, spectrum_keeps, AnalysisParams};
use posgeo::corpus::{LineRange, SequenceStream};
use posgeo::counts::{count_stream, CountsTable, Streamed};
use posgeo::encodings::Encoding;
use posgeo::error::PosgeoError;
use posgeo::mds::{double_centre_rows, Spectrum};
use posgeo::measures::stress::Target;
use posgeo::points::Points;
use posgeo::smacof::RowPlan;
use std::ops::Range;

/// A part of the upload counted: the table one worker would count for those lines.
pub(super) fn count(part: CountPart, tokenizer: &[u8], beside: &dyn Beside) -> Result<Answer, JobError> {
    let mut params = part.params;
    if let Some(name) =
        part.tokenizer.as_ref().filter(|_| params.tokenizer == posgeo::corpus::tokenize::TokenizerKind::Model)
    {
        let model = posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes(name, tokenizer);
        params.model = Some(model?);
    }
    let reader = beside.file_from(0, LineRange::<&[u8]>::read_from(part.start))?;
    let range = LineRange::new(reader, part.start, part.end);
    let mut stream = SequenceStream::new(range, &part.format, part.lossy)?;
    let alive = &mut || {
        beside.alive();
        true
    };
    let counted = match count_stream(&mut stream, &params.tokenizer(), params.max_len, part.keep, alive) {
        // A part without sequences (blank lines only) counts nothing.
        Err(PosgeoError::EmptyInput) => {
            Ok(Streamed { table: CountsTable::empty_text(params.max_len), first: Vec::new() })
        }
        // (An unreadable part is `Unreadable`, and fails the run.)
        Err(PosgeoError::NoSequences(_)) if stream.sequences == 0 => {
            Ok(Streamed { table: CountsTable::empty_text(params.max_len), first: Vec::new() })
        }
        other => other,
    };
    let s = counted?;
    Ok(Answer::Counted { table: s.table.to_bytes(), first: s.first })
}

/// The spectrum of the D beside, keeping the eigenvectors a run under `params` reads. B is
/// built from D's rows where they lie, never copied whole into this memory.
pub(super) fn spectrum(n: usize, params: &AnalysisParams, beside: &dyn Beside) -> Answer {
    if n == 0 || beside.len(0) != Some(n * n) {
        return Answer::Failed { message: format!("D is not {n}×{n}") };
    }
    let mut failed = None;
    let b = double_centre_rows(n, |i, row| {
        if let Err(e) = beside.f64s_into(0, i * n, row) {
            failed.get_or_insert(e);
        }
    });
    if let Some(e) = failed {
        return Answer::Failed { message: e.to_string() };
    }
    let keep = |values: &[f64]| spectrum_keeps(params, values);
    match Spectrum::of_double_centred_keeping(b, keep) {
        Ok(s) => Answer::Spectrum { eigenvectors: s.vectors().to_vec(), eigenvalues: s.eigenvalues },
        Err(e) => Answer::EigenFailed { message: e.to_string() },
    }
}

/// The rows of D of a SMACOF share, checked against its shape.
pub(super) fn share(n: usize, dim: usize, blocks: Range<usize>, beside: &dyn Beside) -> Result<super::Share, JobError> {
    let plan = RowPlan::new(n);
    if blocks.end > plan.len() || blocks.start > blocks.end {
        return Err(JobError::mismatch(format!("blocks {blocks:?} are not among the {} of n = {n}", plan.len())));
    }
    let d_rows = beside.f64s(0)?;
    if d_rows.len() != plan.span(blocks.clone()).len() * n {
        return Err(JobError::mismatch("the share's rows of D are not those of its blocks"));
    }
    Ok(super::Share { n, dim, blocks, d_rows })
}

/// Encodings measured against the D beside (its pairs and ranks) and the PMDS coordinates.
pub(super) fn measure(
    n: usize,
    sum_sq: f64,
    x_dim: usize,
    mut encodings: Vec<Encoding>,
    beside: &dyn Beside,
) -> Result<Answer, JobError> {
    let d = Target::from_parts(beside.f64s(0)?, sum_sq, beside.u32s(1)?)
        .ok_or(JobError::mismatch("D's pairs and ranks differ"))?;
    if !d.holds_pairs_of(n) {
        return Err(JobError::mismatch("D's pairs are not those of n positions"));
    }
    let x = Points { n, dim: x_dim, data: beside.f64s(2)? };
    if x.data.len() != n * x_dim {
        return Err(JobError::mismatch("the coordinates do not match the job"));
    }
    for (i, e) in encodings.iter_mut().enumerate() {
        e.points.data = beside.f64s(3 + i)?;
        if e.points.n != n || e.points.data.len() != n * e.points.dim {
            return Err(JobError::mismatch(format!("encoding {i}'s coordinates do not match n = {n}")));
        }
    }
    Ok(Answer::Measured { measures: measure_against(d, x, n, &encodings) })
}
