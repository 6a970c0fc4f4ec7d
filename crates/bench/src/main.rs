//! Release-mode benchmark of the pipeline's stages (native only). Prints one JSON object:
//! per-stage seconds for a corpus (best of `--repeat` runs), and optionally the
//! eigensolvers compared on the MDS matrix B: faer (used) against nalgebra. `pipeline` is the
//! whole analysis on the corpus read into memory (`Corpus::read` then `analysis::analyze`,
//! every measure; the CLI streams the file instead), best of another `--repeat` runs, with
//! the second each of its stages began.
//!
//! `posgeo-bench CORPUS [--tokenizer whitespace] [--repeat 3] [--eigen | --count-only]`
//! (`--count-only`: reading, counting into a table and the table into positional counts)
//!
//! `posgeo-bench --layers MODEL_DIR CORPUS [--max-len 64] [--layer-sequences 256]
//! [--mode condition|pad] [--repeat 3] [--dump-batches FILE]`: a model's layer pass
//! (`posgeo_model::run`, sums included) and the bare forward pass over the same batches,
//! tokens per second (bench/layers.sh compares them with bench/layers_numpy.py).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    if std::env::args().nth(1).as_deref() == Some("--layers") {
        layers::main()
    } else {
        bench::main()
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod layers {
    use posgeo::counts::Mode;
    use posgeo_model::{self as model, Batch, Model, Plan};
    use std::time::Instant;

    const USAGE: &str = "usage: posgeo-bench --layers MODEL_DIR CORPUS [--max-len 64] [--layer-sequences 256] [--mode condition|pad] [--repeat 3] [--dump-batches FILE]";

    pub fn main() {
        let args: Vec<String> = std::env::args().collect();
        let (dir, corpus) = (std::path::Path::new(args.get(2).expect(USAGE)), args.get(3).expect(USAGE));
        let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
        let num = |name: &str, default: usize| flag(name).map_or(default, |v| v.parse().expect(USAGE));
        let (max_len, s, repeat) = (num("--max-len", 64), num("--layer-sequences", 256), num("--repeat", 3).max(1));
        let mode = Mode::parse(&flag("--mode").unwrap_or("condition".into())).expect(USAGE);
        let model = Model::from_dir(dir).expect("model");
        let tok = std::fs::read(dir.join("tokenizer.json")).expect("read tokenizer.json");
        let tok = posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes("tokenizer.json", &tok).expect("tokenizer");
        let text = std::fs::read(corpus).expect("read corpus");
        let lines = posgeo::Corpus::read(&text, &posgeo::InputFormat::Text, false).expect("corpus").sequences;
        let cut = max_len.min(model.config.max_position_embeddings);
        let seqs: Vec<Vec<u32>> =
            lines.iter().map(|l| tok.ids(l, true, cut)).filter(|v| !v.is_empty()).take(s).collect();
        let plan = Plan::new(seqs, cut, cut, 5, mode, model.config.pad_token_id);
        let groups = model::batches(&plan);
        let padded: Vec<Batch> = groups
            .iter()
            .map(|g| {
                let length = g.iter().map(|&k| plan.run_length(&plan.sequences[k])).max().unwrap_or(1);
                let (mut ids, mut mask) = (Vec::new(), Vec::new());
                for seq in g.iter().map(|&k| &plan.sequences[k]) {
                    ids.extend(seq.iter().copied().chain(std::iter::repeat(plan.pad_id)).take(length));
                    mask.extend((0..length).map(|i| u8::from(i < seq.len())));
                }
                Batch { ids, mask, sequences: g.len(), length }
            })
            .collect();
        let best = |f: &mut dyn FnMut()| {
            let mut time = || {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            };
            (0..repeat).map(|_| time()).fold(f64::INFINITY, f64::min)
        };
        let seconds = best(&mut || {
            std::hint::black_box(model::run(&model, &plan, &groups, &mut |_| true).expect("layer pass"));
        });
        let forward = best(&mut || {
            for b in &padded {
                std::hint::black_box(model.hidden_states(b).expect("forward pass"));
            }
        });
        let tokens_real: usize = plan.sequences.iter().map(Vec::len).sum();
        let tokens_run: usize = padded.iter().map(|b| b.sequences * b.length).sum();
        if let Some(file) = flag("--dump-batches") {
            let dump: Vec<_> = groups
                .iter()
                .zip(&padded)
                .map(|(g, b)| {
                    let seqs: Vec<&Vec<u32>> = g.iter().map(|&k| &plan.sequences[k]).collect();
                    serde_json::json!({"length": b.length, "sequences": seqs})
                })
                .collect();
            let out = serde_json::json!({"pad_id": plan.pad_id, "mode": mode.name(), "cut": cut, "batches": dump});
            std::fs::write(file, out.to_string()).expect("write the batches");
        }
        let out = serde_json::json!({
            "impl": "posgeo", "mode": mode.name(), "max_len": cut, "sequences": plan.sequences.len(),
            "positions": plan.positions, "batches": padded.len(), "tokens_real": tokens_real, "tokens_run": tokens_run,
            "seconds": seconds, "tokens_per_second": tokens_run as f64 / seconds,
            "forward_seconds": forward, "forward_tokens_per_second": tokens_run as f64 / forward,
            "threads": posgeo::par::threads(),
        });
        #[allow(clippy::print_stdout)] // the benchmark's output is its one JSON line
        {
            println!("{out}");
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod bench {
    use posgeo::analysis::AnalysisParams;
    use posgeo::corpus::tokenize::TokenizerKind;
    use posgeo::counts::PositionalCounts;
    use posgeo::encodings::{self, EncodingKind};
    use posgeo::mds::{double_centre, Spectrum};
    use posgeo::measures::{monotonicity, stress};
    use posgeo::{metric, Corpus, DistanceMatrix, InputFormat};
    use std::time::Instant;

    fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
        let t = Instant::now();
        let v = f();
        (v, t.elapsed().as_secs_f64())
    }

    /// With POSGEO_BENCH_VERBOSE on Linux: the peak resident memory since the last call (MB),
    /// printed after `what`; the peak is then reset (/proc/self/clear_refs).
    fn peak(what: &str) {
        if std::env::var_os("POSGEO_BENCH_VERBOSE").is_none() {
            return;
        }
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let hwm = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap_or("VmHWM: ? kB");
        eprintln!("peak resident during {what}: {}", hwm.trim_start_matches("VmHWM:").trim());
        std::fs::write("/proc/self/clear_refs", "5").ok();
    }

    /// The whole pipeline on the corpus in memory (`analysis::analyze`: every encoding measured,
    /// Procrustes, the rank curve, monotonicity), from reading the file: its seconds, and when
    /// each stage began (seconds from the start).
    fn pipeline(path: &str, params: &AnalysisParams) -> (f64, Vec<(String, f64)>) {
        let t = Instant::now();
        let bytes = std::fs::read(path).expect("read corpus");
        let corpus = Corpus::read(&bytes, &InputFormat::Text, false).expect("corpus");
        let mut marks: Vec<(String, f64)> = Vec::new();
        let mut progress = |p: posgeo::analysis::Progress| {
            let stage = format!("{:?}", p.stage).to_lowercase();
            if marks.last().map(|m| &m.0) != Some(&stage) {
                marks.push((stage, t.elapsed().as_secs_f64()));
            }
            true
        };
        std::hint::black_box(posgeo::analysis::analyze(&corpus, params, &[], &mut progress).expect("analysis"));
        (t.elapsed().as_secs_f64(), marks)
    }

    /// The built-in encodings measured against D, the rank curve and the corpus's
    /// monotonicity (what "encodings_stress_monotonicity" times).
    fn encodings_stage(d: &DistanceMatrix, spectrum: &Spectrum, params: &AnalysisParams, n: usize) {
        let verbose = std::env::var_os("POSGEO_BENCH_VERBOSE").is_some();
        let target = stress::Target::new(d).expect("geometry");
        let r_tau = spectrum.effective_rank(params.tau);
        let r_e = spectrum.energy_rank(params.energy).max(1);
        for kind in EncodingKind::BUILT_IN {
            let pmds_dim = r_tau.min(params.encodings.d).max(1);
            let geometry = encodings::CorpusGeometry { distances: d, spectrum, pmds_dim, rank: r_e };
            let (e, t0) =
                time(|| encodings::build(kind, n, &params.encodings, geometry, &mut |_| {}).expect("encoding"));
            let (delta, t) = time(|| e.distances());
            let (_, t2) = time(|| stress::stress_against(&delta, &target));
            if verbose {
                eprintln!(
                    "{kind:?}: built in {t0:.3}s ({} iterations), distances {t:.3}s, stress {t2:.3}s",
                    e.iterations
                );
            }
        }
        let (_, t_curve) = time(|| {
            let rmax = r_tau.clamp(1, 128);
            posgeo::measures::rank_curve::rank_sums(
                &spectrum.coordinates(rmax),
                d,
                &posgeo::measures::rank_curve::rank_grid(rmax),
            )
        });
        let (_, t_mono) = time(|| monotonicity::violation_rate(d));
        if verbose {
            eprintln!("rank curve {t_curve:.3}s, the corpus's monotonicity {t_mono:.3}s");
        }
    }

    /// `--tokenizer-file FILE`: a model's tokenizer.json.
    fn with_model(mut params: AnalysisParams, file: Option<String>) -> AnalysisParams {
        if let Some(file) = file {
            let bytes = std::fs::read(&file).expect("read tokenizer");
            params.tokenizer = TokenizerKind::Model;
            params.model =
                Some(posgeo::corpus::hf_tokenizer::ModelTokenizer::from_bytes(&file, &bytes).expect("tokenizer"));
        }
        params
    }

    /// `--count-only`: reading the file and cutting it into sequences, counting them into a
    /// table and the table into positional counts, each the best of `repeat` runs.
    fn count_only(path: &str, params: &AnalysisParams, repeat: usize) {
        let mut best = [f64::INFINITY; 3];
        for _ in 0..repeat.max(1) {
            let (corpus, t_read) = time(|| {
                let bytes = std::fs::read(path).expect("read corpus");
                Corpus::read(&bytes, &InputFormat::Text, false).expect("corpus")
            });
            let count = params.count_params();
            let (tok, max_len) = (&count.tokenizer, count.max_len);
            let (table, t_count) = time(|| posgeo::counts::count_table(&corpus.sequences, tok, max_len, &mut |_| {}));
            let (_, t_rows) = time(|| PositionalCounts::from_table(&table, &count.table()).expect("counts"));
            for (b, t) in best.iter_mut().zip([t_read, t_count, t_rows]) {
                *b = b.min(t);
            }
        }
        let mb = std::fs::metadata(path).map_or(0.0, |m| m.len() as f64 / 1e6);
        let out = serde_json::json!({
            "corpus": path, "read": best[0], "count_table": best[1], "from_table": best[2],
            "mb_per_s": mb / (best[0] + best[1] + best[2]),
        });
        #[allow(clippy::print_stdout)] // the benchmark's output is its one JSON line
        {
            println!("{out}");
        }
    }

    pub fn main() {
        let args: Vec<String> = std::env::args().collect();
        let path = args
            .get(1)
            .expect("usage: posgeo-bench CORPUS [--tokenizer NAME | --tokenizer-file FILE] [--repeat N] [--eigen | --count-only]");
        let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
        let tokenizer = TokenizerKind::parse(&flag("--tokenizer").unwrap_or("whitespace".into())).expect("tokenizer");
        let repeat: usize = flag("--repeat").and_then(|r| r.parse().ok()).unwrap_or(3);
        let max_len: usize = flag("--max-len").and_then(|r| r.parse().ok()).unwrap_or(512);
        let mut params =
            with_model(AnalysisParams { tokenizer, max_len, ..Default::default() }, flag("--tokenizer-file"));
        if let Some(it) = flag("--smacof-iter").and_then(|r| r.parse().ok()) {
            params.encodings.smacof_max_iter = it;
        }
        if args.iter().any(|a| a == "--count-only") {
            return count_only(path, &params, repeat);
        }
        let mut best = [f64::INFINITY; 5];
        let mut n = 0;
        let mut vocab = 0;
        let mut b_matrix = None;
        for _ in 0..repeat {
            let ((counts, t_read), t_count) = time(|| {
                let (corpus, t_read) = time(|| {
                    let bytes = std::fs::read(path).expect("read corpus");
                    Corpus::read(&bytes, &InputFormat::Text, false).expect("corpus")
                });
                (PositionalCounts::count(&corpus, &params.count_params(), &mut |_| {}).expect("counts"), t_read)
            });
            eprintln!("read {t_read:.3}s of {t_count:.3}s");
            n = counts.n;
            vocab = counts.vocab.len();
            peak("counting");
            let (d, t_dist) = time(|| metric::distances(&counts, params.alpha, params.metric).expect("distances"));
            peak("distances");
            // As a run does: every eigenvalue, and the eigenvectors the run reads.
            let keeps = |values: &[f64]| posgeo::analysis::spectrum_keeps(&params, values);
            let (spectrum, t_mds) = time(|| Spectrum::of_distances_keeping(&d, keeps).expect("eigen"));
            peak("MDS");
            let (_, t_enc) = time(|| encodings_stage(&d, &spectrum, &params, n));
            let total = t_count + t_dist + t_mds + t_enc;
            for (b, t) in best.iter_mut().zip([t_count, t_dist, t_mds, t_enc, total]) {
                *b = b.min(t);
            }
            b_matrix = Some(d);
        }
        let (mut whole, mut stages) = (f64::INFINITY, Vec::new());
        for _ in 0..repeat {
            let (t, marks) = pipeline(path, &params);
            if t < whole {
                (whole, stages) = (t, marks);
            }
        }
        let mut out = serde_json::json!({
            "corpus": path, "n": n, "vocab_size": vocab,
            "read_tokenize_count": best[0], "distances": best[1], "mds": best[2],
            "encodings_stress_monotonicity": best[3], "total": best[4],
            "pipeline": whole, "pipeline_stage_starts": serde_json::Map::from_iter(
                stages.into_iter().map(|(s, t)| (s, serde_json::Value::from(t)))),
        });
        if args.iter().any(|a| a == "--eigen") {
            let b = double_centre(b_matrix.as_ref().expect("ran once"));
            let (_, faer_t) = time(|| Spectrum::of_symmetric(&b).expect("faer"));
            let nb = nalgebra::DMatrix::from_fn(b.nrows(), b.ncols(), |i, j| b[(i, j)]);
            let (_, nalgebra_t) = time(|| nalgebra::SymmetricEigen::new(nb));
            out["eigen_faer"] = faer_t.into();
            out["eigen_nalgebra"] = nalgebra_t.into();
        }
        #[allow(clippy::print_stdout)] // the benchmark's output is its one JSON line
        {
            println!("{out}");
        }
    }
}
