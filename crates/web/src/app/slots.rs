//! The file inputs: a file chosen, read, unreadable or removed, and the shipped files.

use super::run::{failed, run};
use super::{Effect, FileSlot, Model, Slot, SourceKind, MAX_FILE_BYTES};
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::demos::preset::ShippedModel;

pub(super) fn slot_mut(m: &mut Model, slot: Slot) -> &mut FileSlot {
    match slot {
        Slot::Corpus => &mut m.corpus_file,
        Slot::Learned => &mut m.learned_file,
        Slot::Tokenizer => &mut m.tokenizer_file,
        Slot::Model => &mut m.model_file,
    }
}

/// The loaded model folder's name.
pub(super) fn model_file(m: &Model) -> Option<String> {
    match &m.model_file {
        FileSlot::Loaded(name) => Some(name.clone()),
        _ => None,
    }
}

pub(super) fn cleared(m: &mut Model, slot: Slot) -> Vec<Effect> {
    *slot_mut(m, slot) = FileSlot::Empty;
    vec![Effect::Clear(slot), Effect::FileInfo(slot, String::new())]
}

/// Starts loading the shipped file of `slot` (it counts as being read until it arrives).
pub(super) fn use_shipped(m: &mut Model, slot: Slot) -> Vec<Effect> {
    let Some((_, name)) = slot.shipped() else { return Vec::new() };
    if matches!(slot_mut(m, slot), FileSlot::Loaded(n) | FileSlot::Reading(n) if *n == name) {
        return Vec::new(); // already here, or on its way
    }
    *slot_mut(m, slot) = FileSlot::Reading(name.clone());
    vec![Effect::FileInfo(slot, format!("loading {name}…")), Effect::FetchShipped(slot)]
}

/// Starts fetching a shipped model (it counts as being read until it arrives); its size is
/// shown first.
pub(super) fn use_shipped_model(m: &mut Model, which: ShippedModel) -> Vec<Effect> {
    let name = shipped_model_name(which);
    if matches!(&m.model_file, FileSlot::Loaded(n) | FileSlot::Reading(n) if *n == name) {
        return Vec::new(); // already here, or on its way
    }
    m.model_file = FileSlot::Reading(name.clone());
    let size = which.bytes() / 1e6;
    vec![Effect::FileInfo(Slot::Model, format!("loading {name} ({size:.0} MB)…")), Effect::FetchModel(which)]
}

/// The name a shipped model's bundle goes by on the page.
pub fn shipped_model_name(which: ShippedModel) -> String {
    format!("{} (the whole model)", which.name())
}

pub(super) fn file_chosen(m: &mut Model, slot: Slot, name: String, size: f64) -> Vec<Effect> {
    if size > MAX_FILE_BYTES {
        return failed(format!(
            "{name} is {:.0} MB: too large to analyse in the browser (limit {:.0} MB); use the posgeo command line",
            size / 1e6,
            MAX_FILE_BYTES / 1e6
        ));
    }
    let info = Effect::FileInfo(slot, format!("reading {name}…"));
    let helpers = slot == Slot::Corpus && crate::protocol::counted_by_helpers(&name, size);
    *slot_mut(m, slot) = FileSlot::Reading(name);
    let mut fx = vec![info, Effect::ReadFile(slot)];
    if slot == Slot::Corpus {
        fx.push(Effect::SelectSource(SourceKind::File));
        if helpers {
            // Started now, they load while the user sets the options; a worker not yet up
            // is asked when it is.
            match m.worker_ready {
                true => fx.push(Effect::WarmHelpers),
                false => m.warm_pending = true,
            }
        }
    }
    fx
}

pub(super) fn file_loaded(m: &mut Model, slot: Slot, name: String, size: f64, detail: &str) -> Vec<Effect> {
    let mb = size / 1e6;
    let info = match slot {
        Slot::Corpus => format!("{name} — {mb:.2} MB"),
        Slot::Learned => format!("{name} — {mb:.2} MB, {detail}; compared as `learned` in the next run"),
        Slot::Tokenizer => format!("{name} — {mb:.2} MB; counts the model's tokens in the next run (tokenizer: model)"),
        Slot::Model => format!("{name} — {mb:.1} MB{detail}; its layers are compared in the next run"),
    };
    *slot_mut(m, slot) = FileSlot::Loaded(name);
    let mut fx = vec![Effect::FileInfo(slot, info)];
    if slot == Slot::Tokenizer {
        let control = posgeo::options::ANALYSIS.iter().find(|o| o.name == "tokenizer").map(|o| o.control);
        fx.extend(control.map(|c| Effect::SetControl(c, TokenizerKind::Model.name().into())));
    }
    if let Some((form, at)) = m.waiting.take() {
        fx.extend(run(m, form, at));
    }
    fx
}

pub(super) fn file_unreadable(m: &mut Model, slot: Slot, name: &str) -> Vec<Effect> {
    *slot_mut(m, slot) = FileSlot::Empty;
    m.waiting = None;
    let mut fx = vec![Effect::FileInfo(slot, String::new())];
    fx.extend(failed(format!("cannot read {name}")));
    fx
}

impl Slot {
    /// Where files dropped together on the page's drop zone go: a lone `.gguf` file, or a
    /// model folder's files (a `config.json`, a `.safetensors` or a `pytorch_model.bin` among
    /// several) to [`Slot::Model`] as one bundle, anything else to [`Slot::Corpus`] (the
    /// first file).
    pub fn of_dropped(names: &[String]) -> Slot {
        let gguf = |n: &String| n.to_ascii_lowercase().ends_with(".gguf");
        let model_file = |n: &String| {
            let base = n.rsplit(['/', '\\']).next().unwrap_or(n);
            base == "config.json" || base.ends_with(".safetensors") || base == "pytorch_model.bin"
        };
        if (names.len() == 1 && names.iter().all(gguf)) || (names.len() > 1 && names.iter().any(model_file)) {
            Slot::Model
        } else {
            Slot::Corpus
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{update, Msg};
    use super::*;

    #[test]
    fn files_dropped_together_from_a_model_folder_go_to_the_model() {
        let slot = |v: &[&str]| Slot::of_dropped(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(slot(&["config.json", "model.safetensors", "tokenizer.json"]), Slot::Model);
        assert_eq!(slot(&["tokenizer.json", "pytorch.safetensors"]), Slot::Model);
        assert_eq!(slot(&["SmolLM2.Q4_1.gguf"]), Slot::Model);
        assert_eq!(slot(&["M.GGUF"]), Slot::Model);
        assert_eq!(slot(&["config.json", "pytorch_model.bin", "vocab.txt"]), Slot::Model);
        // One file, even a model's, and several corpus files: the corpus (the first).
        assert_eq!(slot(&["model.safetensors"]), Slot::Corpus);
        assert_eq!(slot(&["a.txt", "b.txt"]), Slot::Corpus);
        assert_eq!(slot(&[]), Slot::Corpus);
    }

    #[test]
    fn choosing_a_corpus_the_helpers_will_count_starts_them() {
        let (mut m, big) = (Model::default(), crate::protocol::PARALLEL_FROM);
        let warm = Effect::WarmHelpers;
        let choose = |m: &mut Model, slot, size| update(m, Msg::FileChosen { slot, name: "f.txt".into(), size });
        // Before the worker is ready, it is asked once it is.
        assert!(!choose(&mut m, Slot::Corpus, big).contains(&warm));
        assert_eq!(update(&mut m, Msg::WorkerReady).first(), Some(&warm));
        assert!(!update(&mut m, Msg::WorkerReady).contains(&warm), "asked once");
        assert!(choose(&mut m, Slot::Corpus, big).contains(&warm));
        assert!(!choose(&mut m, Slot::Corpus, big - 1.0).contains(&warm));
        for name in ["f.csv", "f.tsv", "f.txt.gz", "counts.parquet"] {
            let fx = update(&mut m, Msg::FileChosen { slot: Slot::Corpus, name: name.into(), size: big });
            assert!(!fx.contains(&warm), "{name}: not counted by helpers");
        }
        let fx = update(&mut m, Msg::FileChosen { slot: Slot::Corpus, name: "F.JSONL".into(), size: big });
        assert!(fx.contains(&warm));
        assert!(!choose(&mut m, Slot::Learned, 2.0 * big).contains(&warm), "only the corpus is counted by helpers");
        assert!(!update(&mut m, Msg::WorkerReady).contains(&warm));
    }

    #[test]
    fn a_shipped_model_is_fetched_once_with_its_size_shown_first() {
        let mut m = Model::default();
        let fx = update(&mut m, Msg::UseShippedModel(ShippedModel::SmolLm2));
        assert_eq!(
            fx,
            [
                Effect::FileInfo(Slot::Model, "loading SmolLM2-135M-Instruct (the whole model) (98 MB)…".into()),
                Effect::FetchModel(ShippedModel::SmolLm2)
            ]
        );
        assert!(update(&mut m, Msg::UseShippedModel(ShippedModel::SmolLm2)).is_empty(), "on its way");
        // The other shipped model replaces it.
        let fx = update(&mut m, Msg::UseShippedModel(ShippedModel::MiniLm));
        assert!(fx.contains(&Effect::FetchModel(ShippedModel::MiniLm)), "{fx:?}");
        assert!(fx.iter().any(|e| matches!(e, Effect::FileInfo(_, t) if t.contains("(91 MB)"))), "{fx:?}");
        assert_eq!(ShippedModel::SmolLm2.files(), ["SmolLM2-135M-Instruct.Q4_1.gguf"]);
        // The layers chart's measure and the layer map redraw their charts only.
        use crate::view::charts::ChartKind;
        let fx = update(&mut m, Msg::LayersMeasure(posgeo_charts::LayerMeasure::PositionalShare));
        assert_eq!(fx, [Effect::Draw(ChartKind::Layers)]);
        assert_eq!(update(&mut m, Msg::LayerMap(3)), [Effect::Draw(ChartKind::LayerMap)]);
        assert_eq!(m.view.layer_map, Some(3));
    }
}
