//! The worker's session: a full run in two steps (up to the built encodings, then their
//! measures and a model's layers), and the analysis kept between requests for live updates.

use super::{input, payload_of, Files, Payload, Request, Response};
use posgeo::analysis::{geometry, Analysis, AnalysisParams, Geometry, Progress, Stage};
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::error::{PosgeoError, Result};
use posgeo::learned_tables::Table;
use posgeo::mds::Spectrum;

/// What the worker keeps between requests: its last analysis and learned table, so that a
/// request with [`Request::reuse_geometry`] only computes the encodings again.
#[derive(Default)]
pub struct Session {
    kept: Option<(Analysis, Vec<(String, Table)>)>,
}

/// Progress messages for run `id`, one per stage change or per 2 %.
fn throttled(id: u32, post: &mut dyn FnMut(Response)) -> impl FnMut(Progress) -> bool + '_ {
    let mut last = (Stage::Reading, -1.0);
    move |p: Progress| {
        if p.stage != last.0 || p.fraction - last.1 >= 0.02 {
            last = (p.stage, p.fraction);
            post(Response::Progress { id, stage: p.stage, fraction: p.fraction });
        }
        true
    }
}

/// A full run part-way: its encodings built, their measures still to make
/// ([`Session::begin`], [`Session::complete`]).
pub struct Pending {
    /// The analysis so far.
    pub staged: posgeo::analysis::Staged,
    table: Vec<(String, Table)>,
    counts_table: Option<String>,
    /// The model whose layers run once the analysis is complete, with the plan of its pass.
    pub layers: Option<Layers>,
    /// The pass's sums when it was run elsewhere (the page's helper workers).
    pub layer_sums: Option<posgeo_model::LayerSums>,
}

/// A model's pass waiting for the analysis: the model and the sequences it reads.
pub struct Layers {
    /// The model.
    pub model: posgeo_model::Model,
    /// Its plan (sequences, n_L).
    pub plan: posgeo_model::Plan,
}

/// A full run part-way: counts and D, the spectrum still to compute ([`Session::begin`]).
pub struct Unbuilt {
    /// Counts and D.
    pub geometry: Geometry,
    id: u32,
    table: Vec<(String, Table)>,
    counts_table: Option<String>,
    layers: Option<Layers>,
}

impl Unbuilt {
    /// Spectrum → built encodings, with the spectrum of D when it was computed elsewhere
    /// (the page's helper worker) or here (`None`).
    pub fn build(self, spectrum: Option<Spectrum>, post: &mut dyn FnMut(Response)) -> Result<Pending> {
        // In the page, SMACOF is fitted by the worker's helpers ([`crate::smacof`]).
        let later = cfg!(target_arch = "wasm32");
        let staged = self.geometry.stage(spectrum, &self.table, later, &mut throttled(self.id, post))?;
        let (table, counts_table, layers) = (self.table, self.counts_table, self.layers);
        Ok(Pending { staged, table, counts_table, layers, layer_sums: None })
    }
}

/// What [`Session::begin`] leaves: a live update's payload, or a full run to complete.
pub enum Begun {
    /// The payload (a live update is done at once).
    Done(Box<Payload>),
    /// A full run whose spectrum and encodings are to be made ([`Unbuilt::build`]) and then
    /// measured ([`Session::complete`]).
    Geometry(Box<Unbuilt>),
}

impl Session {
    /// Runs a request; a live one ([`Request::reuse_geometry`]) reuses the kept geometry.
    pub fn run(&mut self, req: &Request, files: Files<'_>, post: &mut dyn FnMut(Response)) -> Result<Payload> {
        match self.begin(req, files, post)? {
            Begun::Done(payload) => Ok(*payload),
            Begun::Geometry(unbuilt) => {
                let pending = unbuilt.build(None, post)?;
                self.complete(req, pending, Vec::new(), post)
            }
        }
    }

    /// Runs a live request, or a full one up to its built encodings.
    pub fn begin(&mut self, req: &Request, files: Files<'_>, post: &mut dyn FnMut(Response)) -> Result<Begun> {
        if req.reuse_geometry {
            let Some((kept, table)) = self.kept.take() else {
                return Err(PosgeoError::option("live", "no analysis is kept to update: press Run"));
            };
            let learned = if req.learned.is_some() { &table[..] } else { &[] };
            // The request never carries the model tokenizer (its bytes came with the run the
            // geometry was kept from): the kept one is the one this geometry was counted with,
            // also when it was a model's own tokenizer.json, chosen by the run, not the form.
            let mut params = AnalysisParams { model: kept.params.model.clone(), ..req.params.clone() };
            if kept.params.tokenizer == TokenizerKind::Model {
                params.tokenizer = TokenizerKind::Model;
            }
            let result = kept.reencode(&params, learned, &mut throttled(req.id, post));
            let (analysis, payload) = match result {
                Ok(live) => {
                    let payload = payload_of(&live);
                    (live, Ok(payload))
                }
                Err(e) => (kept, Err(e)),
            };
            self.kept = Some((analysis, table));
            return payload.map(|p| Begun::Done(Box::new(p)));
        }
        self.kept = None; // the old geometry goes before the new one is built
        full_run(req, files, post).map(|u| Begun::Geometry(Box::new(u)))
    }

    /// Completes a full run: measures the encodings not in `given` (the first pending ones'
    /// measures, made elsewhere) and keeps the analysis for live updates.
    pub fn complete(
        &mut self,
        req: &Request,
        pending: Pending,
        given: Vec<posgeo::analysis::Measure>,
        post: &mut dyn FnMut(Response),
    ) -> Result<Payload> {
        let mut analysis = pending.staged.finish(given, &mut throttled(req.id, post))?;
        analysis.counts_table = pending.counts_table;
        if let Some(l) = &pending.layers {
            let sums = match pending.layer_sums {
                Some(s) => s,
                None => {
                    let mut progress = throttled(req.id, post);
                    let batches = posgeo_model::batches(&l.plan);
                    posgeo_model::run(&l.model, &l.plan, &batches, &mut |f| {
                        progress(Progress { stage: Stage::Layers, fraction: f })
                    })?
                }
            };
            posgeo_model::layers::add_layers(&mut analysis, &l.model, &l.plan, &sums)?;
        }
        let payload = payload_of(&analysis);
        self.kept = Some((analysis, pending.table));
        Ok(payload)
    }
}

/// The tokenizer that counts a request's corpus when it is not the form's: a model's own
/// (from its bundle of files: [`bundle_tokenizer`]), unless a tokenizer file was chosen. One
/// worker ([`full_run`]) and the helpers that count a large upload (`web::worker`) both follow
/// it, so that their tables are the same.
pub fn counting_tokenizer(req: &Request, model_bundle: &[u8]) -> Option<posgeo_model::NamedBytes> {
    req.model.as_ref().filter(|_| req.tokenizer.is_none()).and_then(|_| bundle_tokenizer(model_bundle))
}

/// A model bundle's tokenizer, as `Model::from_files` reads it: its tokenizer.json, else the
/// one a `.gguf` member's metadata describes (named as `Model::from_gguf` names it), else a
/// BERT vocab.txt written as one. `None` when there is none or it cannot be read (the run
/// then fails on the model itself, with the message that names the defect).
pub fn bundle_tokenizer(bundle: &[u8]) -> Option<posgeo_model::NamedBytes> {
    use posgeo_model::files;
    if let Some(t) = posgeo_model::bundle_tokenizer(bundle) {
        return Some(t);
    }
    let members = posgeo::learned_tables::bundle_members(bundle).ok()?;
    let find = |name: &str| members.iter().find(|(n, _)| files::base(n) == name).map(|(_, b)| *b);
    if let Some((_, gguf)) = members.iter().find(|(n, _)| n.ends_with(".gguf")) {
        let file = files::gguf::GgufFile::new(gguf).ok()?;
        let json = files::gguf_tokenizer::tokenizer_json(file.metadata()).ok()?;
        return Some(("GGUF tokenizer".to_string(), json.into_bytes()));
    }
    let vocab = find("vocab.txt")?;
    let json = files::vocab::tokenizer_json(vocab, find("tokenizer_config.json")).ok()?;
    Some(("vocab.txt".to_string(), json.into_bytes()))
}

/// Reads the corpus (or counts table) and the learned table, then the pipeline up to the
/// built encodings.
fn full_run(req: &Request, files: Files<'_>, post: &mut dyn FnMut(Response)) -> Result<Unbuilt> {
    post(Response::Progress { id: req.id, stage: Stage::Reading, fraction: 0.0 });
    let mut params = req.params.clone();
    // A model is checked before anything is counted; its tokenizer.json is the tokenizer
    // unless one was chosen, and its position table the learned one unless one was given.
    let model = match &req.model {
        Some(_) => Some(posgeo_model::Model::from_bundle(files.model)?),
        None => None,
    };
    if let Some((name, bytes)) = counting_tokenizer(req, files.model) {
        params.tokenizer = TokenizerKind::Model;
        params.model = Some(ModelTokenizer::from_bytes(&name, &bytes)?);
    } else if let Some(name) = req.tokenizer.as_ref().filter(|_| params.tokenizer == TokenizerKind::Model) {
        params.model = Some(ModelTokenizer::from_bytes(name, files.tokenizer)?);
    }
    params.validate()?;
    // Messages name the file ("learned encoding: t.csv: line 1: …").
    let table = match (&req.learned, &model) {
        (Some(t), _) => posgeo::learned_tables::read_named(files.learned, &t.name, &t.tensors)?,
        (None, Some((m, _))) => m.position_table().into_iter().collect(),
        (None, None) => Vec::new(),
    };
    let counted = input::count(req, files, &mut params, &mut throttled(req.id, post))?;
    post(input::estimate(req.id, &counted, &params));
    let geometry = geometry(&counted.table, counted.examples, &params, &mut throttled(req.id, post))?;
    let layers = match model {
        Some((model, _)) => {
            let n = geometry.distances().n();
            let tokenizer = params.model.as_ref().ok_or(PosgeoError::NeedsTokenizerFile)?;
            let plan = posgeo_model::layers::plan(&counted.first, &params, tokenizer, &model, n)?;
            Some(Layers { model, plan })
        }
        None => None,
    };
    Ok(Unbuilt { geometry, id: req.id, table, counts_table: counted.table_name, layers })
}
