use super::*;
use crate::protocol::learn::{run, LearnRequest};
use crate::protocol::{Files, Request, Source};
use posgeo_learn::{LearnParams, Signal};

/// A small experiment trained for real: three signals, one of them a trainable table, two
/// seeds.
pub(crate) fn experiment() -> Experiment {
    let synth = posgeo::demos::synth::SynthParams { positions: 10, vocab: 30, sequences: 150, ..Default::default() };
    let corpus = Request {
        id: 1,
        source: Source::Synthetic(synth),
        params: posgeo::analysis::AnalysisParams::default(),
        learned: None,
        tokenizer: None,
        model: None,
        reuse_geometry: false,
    };
    let learn = LearnParams {
        signals: vec![Signal::Nope, Signal::Sinusoidal, Signal::Learned],
        steps: 4,
        every: 2,
        seeds: 2,
        d_model: 8,
        heads: 2,
        batch: 8,
        ..LearnParams::default()
    };
    run(&LearnRequest { id: 1, corpus, learn, jobs: Vec::new(), diverge: None }, Files::default(), &mut |_| {}).unwrap()
}

fn data(e: &Experiment) -> LearnData {
    LearnData { runs: e.runs.clone(), experiment: Some(Rc::new(e.clone())), training: false }
}

#[test]
fn rows_carry_every_metric_in_full_precision_in_the_signals_colours() {
    let e = experiment();
    let rows = rows(&e);
    assert_eq!(rows.iter().map(|r| r.signal.as_str()).collect::<Vec<_>>(), ["nope", "sinusoidal", "learned"]);
    for (row, s) in rows.iter().zip(&e.signals) {
        assert_eq!(row.cells.iter().map(|c| c.metric).collect::<Vec<_>>(), METRICS);
        assert_eq!(row.cells[0].value.parse::<f64>().unwrap().to_bits(), s.held_loss.to_bits(), "read back exactly");
        assert_eq!(row.cells[2].value, value_text(s.scaled_stress));
        assert_eq!(row.color, posgeo_charts::palette::css_of(&row.signal));
        assert!(row.seeds.starts_with("2 ("), "two seeds and their range: {}", row.seeds);
    }
    assert_eq!(rows[0].cells[3].value, "null", "a fixed signal has no separation");
    assert_ne!(rows[2].cells[3].value, "null", "a trainable table has one");
    let (text, rho) = finding(&e);
    assert!(text.starts_with(&e.finding.sentence) && text.contains("Seed by seed"), "{text}");
    assert_eq!(rho, value_text(e.finding.rho));
    assert_eq!(value_text(Some(f64::NAN)), "NaN");
}

#[test]
fn the_csv_has_every_record_with_blanks_where_nothing_is_recorded() {
    let e = experiment();
    let text = csv(&e.runs);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], CSV_COLUMNS.join(","));
    assert_eq!(lines.len(), 1 + e.runs.iter().map(|r| r.records.len()).sum::<usize>());
    let first: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(&first[..4], ["nope", "1", "0", ""], "no training loss at step 0");
    assert_eq!(first[4].parse::<f64>().unwrap(), e.runs[0].records[0].held_loss);
    assert!(first[6..].iter().all(|f| f.is_empty()), "a fixed signal has no table measures");
    let learned = lines.iter().rev().find(|l| l.starts_with("learned,2,4,")).unwrap();
    let last = e.runs.iter().rev().find(|r| r.signal == Signal::Learned).unwrap().records.last().unwrap();
    let t = last.table.as_ref().unwrap();
    let fields: Vec<f64> = learned.split(',').skip(3).map(|f| f.parse().unwrap()).collect();
    assert_eq!(
        fields,
        [
            last.train_loss.unwrap(),
            last.held_loss,
            last.held_accuracy,
            t.scaled_stress,
            t.spearman.unwrap(),
            t.monotonicity.unwrap(),
            t.separation
        ]
    );
}

#[test]
fn every_chart_draws_its_signals_and_says_when_there_is_nothing() {
    let e = experiment();
    let d = data(&e);
    for kind in LearnChart::ALL {
        assert_eq!(LearnChart::parse(kind.name()), Some(kind));
        let s = svg(kind, &d, (640, 400)).unwrap();
        assert!(s.contains("learned"), "{kind:?} names the trainable table");
        if matches!(kind, LearnChart::Loss | LearnChart::Scatter) {
            assert!(s.contains("sinusoidal") && s.contains("nope"), "{kind:?}");
        }
        let css = posgeo_charts::palette::css_of("learned").to_uppercase();
        assert!(s.to_uppercase().contains(&css), "{kind:?} draws in the signal's colour");
    }
    assert!(svg(LearnChart::Scatter, &d, (640, 400)).unwrap().contains(&format!("{:.2}", e.finding.rho.unwrap())));
    let none = LearnData::default();
    assert!(svg(LearnChart::Loss, &none, (640, 400)).unwrap().contains("not trained yet"));
    let training = LearnData { training: true, ..LearnData::default() };
    assert!(svg(LearnChart::Scatter, &training, (640, 400)).unwrap().contains("when the training finishes"));
    let fixed: Vec<Run> = e.runs.iter().filter(|r| !r.signal.trainable()).cloned().collect();
    let d = LearnData { runs: fixed, ..data(&e) };
    assert!(svg(LearnChart::Map, &d, (640, 400)).unwrap().contains("no trainable table"));
}

#[test]
fn exports_are_the_csv_and_the_charts() {
    let e = experiment();
    let d = data(&e);
    let csv_file = LearnExport::Csv.file(&d, (640, 400)).unwrap().unwrap();
    assert_eq!((csv_file.name.as_str(), csv_file.mime), ("posgeo-learn.csv", "text/csv"));
    assert_eq!(csv_file.bytes, csv(&e.runs).into_bytes());
    let svg_file = LearnExport::Chart(LearnChart::Loss, ImageFormat::Svg).file(&d, (640, 400)).unwrap().unwrap();
    assert_eq!(svg_file.name, "posgeo-learn-loss.svg");
    assert!(String::from_utf8(svg_file.bytes).unwrap().starts_with("<svg"));
    assert!(LearnExport::Chart(LearnChart::Map, ImageFormat::Png).file(&d, (640, 400)).is_none(), "the canvas's");
    assert!(LearnExport::Csv.file(&LearnData::default(), (640, 400)).unwrap().is_err());
}

/// The learned tables download as `.npy` (one run's) and safetensors (every run's); the reader
/// of learned tables gets the final tables back exactly.
#[test]
fn learned_tables_export_as_npy_and_safetensors() {
    let e = experiment();
    let d = data(&e);
    let rows = rows(&e);
    let trained: Vec<&Run> = e.runs.iter().filter(|r| r.signal == Signal::Learned).collect();
    assert_eq!(rows[2].tables, trained.iter().map(|r| r.seed).collect::<Vec<_>>());
    assert!(rows[0].tables.is_empty() && rows[1].tables.is_empty(), "fixed signals have nothing to download");
    let as_rows = |t: &[f32]| -> Vec<Vec<f64>> { t.chunks(8).map(|r| r.iter().map(|&v| v as f64).collect()).collect() };
    let both = LearnExport::Tables.file(&d, (640, 400)).unwrap().unwrap();
    assert_eq!(both.name, "posgeo-learned-tables.safetensors");
    for run in &trained {
        let want = as_rows(run.table.as_deref().unwrap());
        assert_eq!(want.len(), e.n);
        let one = LearnExport::Table(Signal::Learned, run.seed).file(&d, (640, 400)).unwrap().unwrap();
        assert_eq!(one.name, format!("posgeo-learned-seed{}.npy", run.seed));
        assert_eq!(posgeo::learned_tables::read_table(&one.bytes, None).unwrap(), want);
        let name = format!("learned.seed{}", run.seed);
        assert_eq!(posgeo::learned_tables::read_table(&both.bytes, Some(&name)).unwrap(), want);
    }
    let none = LearnExport::Table(Signal::Sinusoidal, 1).file(&d, (640, 400)).unwrap().unwrap_err();
    assert!(none.contains("no learned table"), "{none}");
    assert!(LearnExport::Tables.file(&LearnData::default(), (640, 400)).unwrap().is_err());
}

/// Every signal has a colour of its own (learned and learned_pmds too).
#[test]
fn each_signal_has_its_own_colour() {
    let colours: std::collections::BTreeSet<String> =
        Signal::ALL.iter().map(|s| posgeo_charts::palette::css_of(s.name())).collect();
    assert_eq!(colours.len(), Signal::ALL.len());
}
