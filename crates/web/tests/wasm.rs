//! The numeric core and the web glue, run in headless Chromium (wasm-bindgen-test):
//! the browser must compute what the CLI computes.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used)] // tests may unwrap: a failure is the test failing

use posgeo::analysis::{analyze, AnalysisParams};
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::encodings::EncodingKind;
use posgeo::{Corpus, InputFormat};
use posgeo_charts as charts;
use posgeo_web::protocol::{self, Request, Response, Source};
use posgeo_web::url::PageState;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[path = "wasm/runtime.rs"]
mod runtime;

fn one_hot() -> Corpus {
    Corpus::from_sequences((0..5).map(|_| "a b c"))
}

#[wasm_bindgen_test]
fn three_one_hot_distributions_give_one_sixth_and_one_ninth() {
    let mut p = AnalysisParams { tokenizer: TokenizerKind::Whitespace, ..Default::default() };
    p.encodings.d = 1;
    let a = analyze(&one_hot(), &p, &[], &mut |_| true).unwrap();
    let pmds = a.compared.iter().find(|c| c.encoding.kind == EncodingKind::Pmds).unwrap();
    assert!((pmds.stress.raw_stress - 1.0 / 6.0).abs() < 1e-12);
    assert!((pmds.stress.scaled_stress - 1.0 / 9.0).abs() < 1e-12);
    let nope = a.compared.iter().find(|c| c.encoding.kind == EncodingKind::Nope).unwrap();
    assert_eq!(nope.stress.raw_stress, 1.0);
}

#[wasm_bindgen_test]
fn full_rank_pmds_is_exact_and_the_spectrum_is_psd() {
    let lines: Vec<String> = (0..40).map(|k| format!("x{} y{} z{} w{}", k % 3, k % 5, k % 4, k % 7)).collect();
    let a = analyze(&Corpus::from_sequences(lines), &AnalysisParams::default(), &[], &mut |_| true).unwrap();
    assert!(a.spectrum.eigenvalues.iter().all(|&l| l > -1e-12));
    let pmds = a.compared.iter().find(|c| c.encoding.kind == EncodingKind::Pmds).unwrap();
    assert!(pmds.stress.raw_stress < 1e-12);
}

#[wasm_bindgen_test]
fn gzip_and_csv_decode_in_the_browser() {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(b"id,text\n1,\"a, b\"\n2,c d\n").unwrap();
    let gz = enc.finish().unwrap();
    let f = InputFormat::Csv { delimiter: b',', column: Some("text".into()), has_header: true };
    assert_eq!(Corpus::read(&gz, &f, false).unwrap().sequences, vec!["a, b", "c d"]);
}

#[wasm_bindgen_test]
fn worker_protocol_runs_and_reports_progress() {
    let req = Request {
        id: 5,
        source: Source::Genesis,
        params: AnalysisParams { max_len: 20, ..Default::default() },
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let json = serde_json::to_string(&req).unwrap();
    let back: Request = serde_json::from_str(&json).unwrap();
    let mut progress = 0;
    let payload = protocol::run(&back, &[], &[], &mut |r| {
        if matches!(r, Response::Progress { id: 5, .. }) {
            progress += 1;
        }
    })
    .unwrap();
    assert!(progress >= 5);
    assert_eq!(payload.report.n, 20);
    assert_eq!(payload.report.sequences, Some(1533));
}

#[wasm_bindgen_test]
fn url_state_round_trips_through_url_search_params() {
    let mut st = PageState::default();
    st.params.encodings.d = 48;
    st.params.alpha = 0.5;
    let q = web_sys::UrlSearchParams::new().unwrap();
    for (k, v) in st.to_pairs() {
        q.append(&k, &v);
    }
    let s: String = q.to_string().into();
    let parsed = web_sys::UrlSearchParams::new_with_str(&s).unwrap();
    let pairs = [("d", parsed.get("d").unwrap()), ("alpha", parsed.get("alpha").unwrap())];
    let back = PageState::from_pairs(pairs.iter().map(|(k, v)| (*k, v.as_str())));
    assert_eq!(back, st);
}

#[wasm_bindgen_test]
fn charts_draw_on_an_offscreen_canvas() {
    use plotters::prelude::*;
    let lines: Vec<String> = (0..40).map(|k| format!("x{} y{} z{} w{}", k % 3, k % 5, k % 4, k % 7)).collect();
    let r =
        analyze(&Corpus::from_sequences(lines), &AnalysisParams::default(), &[], &mut |_| true).unwrap().report(true);
    let doc = web_sys::window().unwrap().document().unwrap();
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().unchecked_into();
    canvas.set_width(400);
    canvas.set_height(300);
    let root = plotters_canvas::CanvasBackend::with_canvas_object(canvas.clone()).unwrap().into_drawing_area();
    let frame = charts::stress_bars(&root, &r, false).unwrap();
    root.present().unwrap();
    assert!(frame.px.0 < frame.px.1 && frame.py.0 < frame.py.1);
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let data = ctx.get_image_data(0.0, 0.0, 400.0, 300.0).unwrap().data();
    let coloured = data.chunks(4).filter(|p| !(p[0] == p[1] && p[1] == p[2])).count();
    assert!(coloured > 100, "bars are drawn in colour ({coloured} pixels)");
}

/// The page's canvas backend, which sets a colour only when it changes, draws what
/// plotters-canvas draws, pixel for pixel, also when text (drawn by plotters-canvas, which
/// sets the fill colour itself) comes between two shapes of one colour. (Headless Chromium
/// draws at devicePixelRatio 1, so both canvases keep their 160×100 pixels.)
#[wasm_bindgen_test]
fn the_measured_canvas_draws_what_plotters_canvas_draws() {
    use plotters::prelude::*;
    let doc = web_sys::window().unwrap().document().unwrap();
    let canvas = || {
        let c: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().unchecked_into();
        c.set_width(160);
        c.set_height(100);
        c
    };
    fn scene<DB: DrawingBackend>(root: &DrawingArea<DB, plotters::coord::Shift>) {
        let red = RED.mix(0.45).filled();
        root.fill(&WHITE).unwrap();
        root.draw(&Circle::new((20, 20), 8, red)).unwrap();
        root.draw(&Circle::new((26, 24), 8, red)).unwrap();
        root.draw(&Text::new("posgeo", (40, 10), ("sans-serif", 14).into_font().color(&BLUE))).unwrap();
        root.draw(&Circle::new((30, 60), 8, red)).unwrap();
        root.draw(&PathElement::new(vec![(0, 80), (150, 80)], GREEN.stroke_width(1))).unwrap();
        root.draw(&Rectangle::new([(60, 40), (90, 70)], RED.filled())).unwrap();
        root.draw(&PathElement::new(vec![(100, 10), (100, 90)], GREEN.stroke_width(1))).unwrap();
        root.draw(&PathElement::new(vec![(110, 10), (150, 90)], BLUE.stroke_width(3))).unwrap();
        root.draw(&Circle::new((130, 40), 10, BLUE.stroke_width(2))).unwrap();
        root.draw(&Rectangle::new([(120, 60), (150, 90)], GREEN.mix(0.5).filled())).unwrap();
    }
    let (a, b) = (canvas(), canvas());
    let measured = posgeo_web::dom::render::MeasuredCanvas::new(&a).unwrap().into_drawing_area();
    scene(&measured);
    let plain = plotters_canvas::CanvasBackend::with_canvas_object(b.clone()).unwrap().into_drawing_area();
    scene(&plain);
    let pixels = |c: &web_sys::HtmlCanvasElement| {
        let ctx: web_sys::CanvasRenderingContext2d = c.get_context("2d").unwrap().unwrap().unchecked_into();
        ctx.get_image_data(0.0, 0.0, 160.0, 100.0).unwrap().data().to_vec()
    };
    let (pa, pb) = (pixels(&a), pixels(&b));
    let differ = pa.chunks(4).zip(pb.chunks(4)).filter(|(x, y)| x != y).count();
    assert_eq!(differ, 0, "pixels that differ");
    assert!(pa.chunks(4).filter(|p| p[0] > 200 && p[1] < 100).count() > 100, "red is drawn");
}

#[wasm_bindgen_test]
fn the_first_load_is_answered_by_the_shipped_results_in_wasm() {
    use posgeo_web::app::{update, Effect, Form, Model, Msg};
    let mut m = Model::default();
    update(&mut m, Msg::Start(Box::default()));
    let fx = update(&mut m, Msg::Run { form: Form::from_state(&PageState::default()), at: 0.0 });
    let shown = fx.iter().any(|e| matches!(e, Effect::RenderResults(_)));
    let mut fx = fx;
    fx.extend(update(&mut m, Msg::WorkerReady));
    let job = fx.iter().find_map(|e| if let Effect::Post(j) = e { Some(j.clone()) } else { None }).expect("posted");
    let json = serde_json::to_string(&Request { id: 0, ..job.request.clone() }).expect("json");
    assert_eq!(json, protocol::shipped::REQUEST.trim_end(), "the page's first request is the shipped one");
    let payload: Result<protocol::Payload, _> = serde_json::from_str(protocol::shipped::PAYLOAD);
    assert!(payload.is_ok(), "{:?}", payload.err());
    assert!(shown, "the first run's results are drawn at once");
}

/// A model's layers in the browser: a random BERT's batch gives every sequence's states as
/// when it runs alone (the mask hides the padding), and a request with the model gives its
/// layer rows, finite and as the core computes them.
#[wasm_bindgen_test]
fn a_models_layers_run_in_the_browser() {
    let tokenizer = include_bytes!("../../../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    let bundle = posgeo_model::random::random_bert(3, ("tokenizer.json.gz", tokenizer));
    let (model, _) = posgeo_model::Model::from_bundle(&bundle).unwrap();
    let seqs: [&[u32]; 2] = [&[101, 7592, 2088, 102], &[101, 2088, 102]];
    let alone = |s: &[u32]| {
        let b = posgeo_model::Batch { ids: s.to_vec(), mask: vec![1; s.len()], sequences: 1, length: s.len() };
        model.hidden_states(&b).unwrap()
    };
    let batch = posgeo_model::Batch {
        ids: [seqs[0], &[seqs[1], &[0]].concat()].concat(),
        mask: vec![1, 1, 1, 1, 1, 1, 1, 0],
        sequences: 2,
        length: 4,
    };
    let together = model.hidden_states(&batch).unwrap();
    let h = model.config.hidden_size;
    let second = alone(seqs[1]);
    for (l, layer) in together.iter().enumerate() {
        for k in 0..3 * h {
            assert!((layer[4 * h + k] - second[l][k]).abs() < 1e-5, "layer {l}, value {k}");
        }
    }
    let mut params = AnalysisParams { max_len: 24, layer_sequences: 30, ..Default::default() };
    params.encodings.d = 8;
    let req = Request {
        id: 1,
        source: Source::Genesis,
        params,
        learned: None,
        tokenizer: None,
        reuse_geometry: false,
        model: Some("random".into()),
    };
    let files = protocol::Files { model: &bundle, ..Default::default() };
    let payload = protocol::Session::default().run(&req, files, &mut |_| {}).unwrap();
    let layers = payload.report.layers.clone().unwrap();
    assert_eq!((layers.num_layers, layers.hidden_size, layers.sequences_used), (2, 8, 30));
    for l in 0..=2 {
        for key in [format!("layer:{l}"), format!("layer-residual:{l}")] {
            let e = &payload.report.encodings[&key];
            assert!(e.scaled_stress.is_finite() && e.scaled_stress > 0.0 && e.scaled_stress <= 1.0, "{key}");
            assert_eq!(e.dim, 8);
        }
    }
}

#[wasm_bindgen_test]
fn smacof_by_blocks_of_rows_follows_the_one_worker_loop_in_wasm() {
    // What the page's helper workers compute, in wasm: the same iterations and stop as the
    // one-worker loop, and the same configuration up to round-off.
    use posgeo::metric::DistanceMatrix;
    use posgeo::smacof::{smacof, smacof_one_worker, SMACOF_TOL};
    let n = 90;
    let unit = |k: usize| ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    let target = DistanceMatrix::from_fn(n, |i, j| 0.3 + unit(i.min(j) * n + i.max(j)));
    let start = posgeo::mds::Spectrum::of_distances(&target).unwrap().coordinates(4);
    let one = smacof_one_worker(&start, &target, 500, SMACOF_TOL, &mut |_| {});
    let rows = smacof(&start, &target, 500, SMACOF_TOL, &mut |_| {});
    assert_eq!((one.iterations, one.stop), (rows.iterations, rows.stop));
    assert!(one.iterations >= 2, "{} iterations", one.iterations);
    let gap = one.points.data.iter().zip(&rows.points.data).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(gap < 1e-10, "coordinates differ by {gap}");
}

#[wasm_bindgen_test]
fn keeping_the_first_eigenvectors_in_wasm_gives_the_whole_decompositions() {
    // The eigen-step of a long context in the page (above faer's divide-and-conquer
    // threshold): the eigenvalues are the whole decomposition's, bit for bit, and the first k
    // vectors kept are its vectors up to round-off (in wasm the back-transformation's GEMM
    // may round k columns otherwise than n), unit eigenvectors of B.
    use posgeo::mds::{double_centre, Spectrum};
    use posgeo::metric::DistanceMatrix;
    let n = 200;
    let unit = |k: usize| ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    let target = DistanceMatrix::from_fn(n, |i, j| 0.5 + unit(i.min(j) * n + i.max(j)));
    let all = Spectrum::of_distances(&target).unwrap();
    let some = Spectrum::of_distances_keeping(&target, |_| 12).unwrap();
    assert_eq!((some.kept(), &some.eigenvalues), (12, &all.eigenvalues));
    for k in 0..12 {
        let dot: f64 = some.vector(k).iter().zip(all.vector(k)).map(|(a, b)| a * b).sum();
        assert!((dot - 1.0).abs() < 1e-12, "vector {k}: ⟨kept, whole⟩ = {dot}");
    }
    let b = double_centre(&target);
    let v = some.vector(0);
    let residual: f64 =
        (0..n).map(|i| ((0..n).map(|j| b[(i, j)] * v[j]).sum::<f64>() - some.eigenvalues[0] * v[i]).powi(2)).sum();
    assert!(residual.sqrt() < 1e-10, "{residual}");
}

#[wasm_bindgen_test]
fn matrix_products_run_on_the_simd_kernels_in_wasm() {
    // faer's and candle's products in wasm go through the `gemm` crate, whose 128-bit SIMD
    // kernels are off unless its `wasm-simd128-enable` flag is set; with them the product is
    // still the product (against a plain triple loop, sizes past its small-matrix path).
    use faer::linalg::matmul::matmul;
    use faer::{Accum, Mat, Par};
    assert!(gemm_common::get_wasm_simd128(), "gemm runs its scalar kernels in wasm");
    let (m, k, n) = (67, 131, 45);
    let a = Mat::<f64>::from_fn(m, k, |i, j| ((i * 31 + j * 17) % 23) as f64 - 11.0);
    let b = Mat::<f64>::from_fn(k, n, |i, j| ((i * 13 + j * 7) % 19) as f64 / 8.0);
    let mut c = Mat::<f64>::zeros(m, n);
    matmul(c.as_mut(), Accum::Replace, a.as_ref(), b.as_ref(), 1.0, Par::Seq);
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k).map(|l| a[(i, l)] * b[(l, j)]).sum();
            assert_eq!(c[(i, j)], want, "({i}, {j})"); // small integers and eighths: exact
        }
    }
}

#[wasm_bindgen_test]
fn b_from_the_rows_of_a_typed_array_is_b_of_d() {
    // The page's spectrum helper builds B from the rows of the D a message brought, without
    // copying D into its memory: the same numbers as double-centring D itself, bit for bit.
    use posgeo::mds::{double_centre, double_centre_rows};
    use posgeo::metric::DistanceMatrix;
    let n = 37;
    let d = DistanceMatrix::from_fn(n, |i, j| if i == j { 0.0 } else { 0.2 + ((i * 7 + j * 7) % 11) as f64 / 9.0 });
    let arr = js_sys::Float64Array::from(d.as_slice());
    let b = double_centre_rows(n, |i, row| arr.subarray((i * n) as u32, ((i + 1) * n) as u32).copy_to(row));
    let want = double_centre(&d);
    for i in 0..n {
        for j in 0..n {
            assert_eq!(b[(i, j)].to_bits(), want[(i, j)].to_bits(), "({i}, {j})");
        }
    }
}

#[wasm_bindgen_test]
fn the_block_splits_give_the_standard_tokens_in_wasm() {
    // The whitespace and ASCII words splits work on 64-bit masks; in wasm they must give
    // what `split_whitespace` and `unicode_words` give, lowercased.
    use posgeo::corpus::tokenize::Tokenizer;
    use unicode_segmentation::UnicodeSegmentation;
    let pieces = [
        "The", "cat's", " ", "  ", "\t", "3.14", "1,000", "e.g.", "a:b", "__", "x_y", "HAT,", "\u{3000}", "é", "\r\n",
        "?",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..300 {
        let text: String = (0..90)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                pieces[(state % pieces.len() as u64) as usize]
            })
            .collect();
        for (kind, want) in [
            (TokenizerKind::Whitespace, text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>()),
            (TokenizerKind::Words, text.unicode_words().map(str::to_lowercase).collect()),
        ] {
            let tk = Tokenizer { kind, lowercase: true, bos: false, model: None, special_tokens: false, kmer: 1 };
            assert_eq!(tk.tokens(&text, usize::MAX), want, "{kind:?} {text:?}");
            let ascii: String = text.chars().filter(char::is_ascii).collect();
            let want: Vec<String> = match kind {
                TokenizerKind::Words => ascii.unicode_words().map(str::to_lowercase).collect(),
                _ => ascii.split_whitespace().map(str::to_lowercase).collect(),
            };
            assert_eq!(tk.tokens(&ascii, usize::MAX), want, "{kind:?} {ascii:?}");
        }
    }
}

#[wasm_bindgen_test]
fn the_helpers_tables_passed_and_appended_are_the_whole_texts_in_wasm() {
    // As the page's helpers do: each part counted alone, passed in the binary form and
    // appended in file order, gives the table of the whole text — with a vocabulary large
    // enough for both ways of adding a position, and with a model tokenizer (its tokens
    // counted by id), against its tokens' texts counted as whitespace tokens.
    use posgeo::corpus::hf_tokenizer::ModelTokenizer;
    use posgeo::corpus::tokenize::Tokenizer;
    use posgeo::counts::{count_table, CountsTable};
    let lines: Vec<String> = (0..3000u64)
        .map(|k| {
            let word = |i: u64| match (k * 31 + i * 17) % 5 {
                0 => ["the", "dog", "Bites", "man", "quickly"][(i % 5) as usize].to_string(),
                _ => format!("r{}", (k * 2_654_435_761 + i * 40_503) % 20_011),
            };
            (0..(2 + k % 12)).map(word).collect::<Vec<_>>().join(" ")
        })
        .collect();
    let minilm = include_bytes!("../../../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    let model = ModelTokenizer::from_bytes("tokenizer.json.gz", minilm).unwrap();
    let tk = |kind, model| Tokenizer { kind, lowercase: true, bos: false, model, special_tokens: true, kmer: 1 };
    let by_id = tk(TokenizerKind::Model, Some(model));
    let texts: Vec<String> = lines.iter().map(|l| by_id.tokens(l, usize::MAX).join(" ")).collect();
    for (tokenizer, seqs) in [(tk(TokenizerKind::Whitespace, None), &lines), (by_id.clone(), &lines)] {
        let whole = count_table(seqs, &tokenizer, 16, &mut |_| {});
        let mut parts = CountsTable::empty_text(16);
        for part in [&seqs[..1234], &seqs[1234..2900], &seqs[2900..]] {
            let bytes = count_table(part, &tokenizer, 16, &mut |_| {}).to_bytes();
            parts.append(CountsTable::from_bytes(&bytes).unwrap());
        }
        assert_eq!(parts, whole, "{:?}", tokenizer.kind);
    }
    let as_text = count_table(&texts, &tk(TokenizerKind::Whitespace, None), 16, &mut |_| {});
    assert_eq!(count_table(&lines, &by_id, 16, &mut |_| {}), as_text);
}

#[wasm_bindgen_test]
fn the_fused_trainer_follows_candle_in_wasm() {
    // The fused trainer (gemm's simd128 kernels) against the candle graph, every signal: the
    // first step's gradients to 1e-4 relative, 20 losses to 1e-5 (MATH.md §16).
    use posgeo_learn::{oracle::compare, LearnParams, Signal};
    let (signals, steps, d_model, heads, batch, every) = (Signal::ALL.to_vec(), 20, 16, 2, 6, 5);
    let p = LearnParams { signals, steps, d_model, heads, batch, every, ..Default::default() };
    let ctx = posgeo_learn::test_support::learn_context(160, 14, &p);
    for signal in Signal::ALL {
        let a = compare(&ctx, signal, 1, 20).expect("compare");
        assert!(a.worst_gradient.1 < 1e-4, "{signal:?}: {:?}", a.worst_gradient);
        assert!(a.worst_loss < 1e-5, "{signal:?}: losses {}", a.worst_loss);
        assert_eq!(a.steps, 20, "{signal:?}");
    }
}
