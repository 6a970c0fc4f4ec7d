use super::*;
use posgeo::analysis::analyze;
use posgeo::corpus::hf_tokenizer::ModelTokenizer;
use posgeo::corpus::tokenize::TokenizerKind;
use posgeo::test_support::Trickle;

#[test]
fn messages_round_trip_as_json() {
    let req = Request {
        id: 7,
        source: Source::Bytes {
            name: "x.csv".into(),
            format: InputFormat::Csv { delimiter: b',', column: Some("text".into()), has_header: true },
            lossy: false,
        },
        params: AnalysisParams::default(),
        learned: Some(LearnedTable { name: "model.safetensors".into(), tensors: vec!["wpe.weight".into()] }),
        reuse_geometry: true,
        model: None,
        tokenizer: None,
    };
    let back: Request = serde_json::from_str(&serde_json::to_string(&req).unwrap()).unwrap();
    assert_eq!(back, req);
    let r = Response::Progress { id: 1, stage: Stage::Mds, fraction: 0.5 };
    assert_eq!(serde_json::from_str::<Response>(&serde_json::to_string(&r).unwrap()).unwrap(), r);
}

#[test]
fn a_run_reports_progress_then_the_same_numbers_as_the_engine() {
    let params = AnalysisParams {
        encodings: posgeo::encodings::EncodingParams { d: 32, ..Default::default() },
        ..Default::default()
    };
    let synth = SynthParams { sequences: 200, positions: 16, ..Default::default() };
    let req = Request {
        id: 3,
        source: Source::Synthetic(synth.clone()),
        params: params.clone(),
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let mut stages = Vec::new();
    let payload = run(&req, &[], &[], &mut |r| {
        if let Response::Progress { id, stage, .. } = r {
            assert_eq!(id, 3);
            stages.push(stage);
        }
    })
    .unwrap();
    assert!(stages.contains(&Stage::Counting) && stages.contains(&Stage::Stress));
    let direct = analyze(&Corpus::from_sequences(generate(&synth).unwrap()), &params, &[], &mut |_| true).unwrap();
    assert_eq!(payload.report, direct.report(true));
    assert_eq!(payload.shepard.len(), 8);
    let pts = &payload.shepard["pmds"];
    assert!(!pts.is_empty() && pts.iter().all(|(d, e)| (d - e).abs() < 1e-5));
}

#[test]
fn bulk_arrays_round_trip() {
    let params = AnalysisParams {
        encodings: posgeo::encodings::EncodingParams { d: 16, ..Default::default() },
        ..Default::default()
    };
    let synth = SynthParams { sequences: 100, positions: 12, ..Default::default() };
    let req = Request {
        id: 1,
        source: Source::Synthetic(synth),
        params,
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let original = run(&req, &[], &[], &mut |_| {}).unwrap();
    let mut light = original.clone();
    let bulk = light.take_bulk();
    assert!(light.report.matrix.is_empty() && light.coordinates.data.is_empty() && light.shepard.is_empty());
    let n = original.report.n;
    assert_eq!(bulk.matrix.len(), n * n);
    assert_eq!(bulk.header.shepard.len(), original.shepard.len());
    // The header travels as JSON.
    let header: BulkHeader = serde_json::from_str(&serde_json::to_string(&bulk.header).unwrap()).unwrap();
    let mut back = light.clone();
    back.restore_bulk(Bulk { header, ..bulk });
    assert_eq!(back, original);
}

#[test]
fn bad_bytes_become_an_error_message() {
    let req = Request {
        id: 1,
        source: Source::Bytes { name: String::new(), format: InputFormat::Text, lossy: false },
        params: AnalysisParams::default(),
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let err = run(&req, b"", &[], &mut |_| {}).unwrap_err();
    assert_eq!(err.to_string(), "the input is empty");
    let genesis = Request { source: Source::Genesis, ..req };
    assert!(run(&genesis, &[], &[], &mut |_| {}).is_ok());
    // A learned table that does not parse names its file.
    let learned = Some(LearnedTable { name: "t.csv".into(), tensors: vec![] });
    let err = run(&Request { learned, ..genesis }, &[], b"1 x\n", &mut |_| {}).unwrap_err();
    assert!(err.to_string().starts_with("learned encoding: t.csv: line 1"), "{err}");
}

#[test]
fn a_learned_table_is_compared_like_the_engine_does() {
    let params = AnalysisParams { max_len: 12, ..Default::default() };
    let table: Vec<Vec<f64>> = (0..12).map(|i| vec![(i as f64 * 0.3).sin(), (i as f64 * 0.7).cos(), 0.1]).collect();
    let text: String = table.iter().map(|r| format!("{}, {}, {}\n", r[0], r[1], r[2])).collect();
    let learned = Some(LearnedTable { name: "t.csv".into(), tensors: vec![] });
    let req = Request {
        id: 2,
        source: Source::Genesis,
        params: params.clone(),
        learned,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let payload = run(&req, &[], text.as_bytes(), &mut |_| {}).unwrap();
    let direct =
        analyze(&Corpus::from_text(GENESIS), &params, &[("t".to_string(), table.clone())], &mut |_| true).unwrap();
    assert_eq!(payload.report, direct.report(true));
    assert!(payload.report.encodings.contains_key("learned") && payload.shepard.contains_key("learned"));
}

/// A live request on the kept geometry gives exactly what a whole run with the same options
/// gives; without a kept analysis it is a message.
#[test]
fn a_session_updates_the_encodings_on_its_kept_geometry() {
    let mut p = AnalysisParams::default();
    p.encodings.d = 8;
    let source = Source::Synthetic(SynthParams { sequences: 150, positions: 16, ..Default::default() });
    let req = Request {
        id: 1,
        source: source.clone(),
        params: p.clone(),
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let mut session = Session::default();
    let live = Request { id: 2, reuse_geometry: true, model: None, tokenizer: None, ..req.clone() };
    assert!(session.run(&live, Files::default(), &mut |_| {}).unwrap_err().to_string().contains("press Run"));
    session.run(&req, Files::default(), &mut |_| {}).unwrap();
    let mut q = p.clone();
    q.encodings.slope = 2.0;
    q.encodings.head_dim = 8;
    let live = Request { id: 2, params: q.clone(), reuse_geometry: true, model: None, tokenizer: None, ..req.clone() };
    let mut stages = Vec::new();
    let updated = session.run(&live, Files::default(), &mut |r| stages.push(r)).unwrap();
    let whole = run(&Request { id: 3, params: q, ..req }, b"", b"", &mut |_| {}).unwrap();
    assert_eq!(updated, whole);
    assert!(
        stages.iter().all(|r| matches!(r, Response::Progress { stage: Stage::Encodings | Stage::Stress, .. })),
        "no recount"
    );
}

/// The geometry chart's blocks: D's block means; PMDS at full rank reproduces them (a* = 1,
/// δ = D), `nope` is all zero.
#[test]
fn heat_blocks_of_an_exact_encoding_equal_the_corpus_blocks() {
    let mut params = AnalysisParams::default();
    params.encodings.d = 64;
    let source = Source::Synthetic(SynthParams { sequences: 200, positions: 30, ..Default::default() });
    let req = Request { id: 1, source, params, learned: None, reuse_geometry: false, model: None, tokenizer: None };
    let p = run(&req, b"", b"", &mut |_| {}).unwrap();
    let h = &p.heat;
    assert_eq!((h.side, h.corpus.len()), (30, 900));
    let pmds = &h.encodings["pmds"];
    assert!(h.corpus.iter().zip(pmds).all(|(d, e)| (d - e).abs() < 1e-5), "PMDS is exact here");
    assert!(h.encodings["nope"].iter().all(|&v| v == 0.0));
    // Diagonal blocks of size 1 are zero; block means of a 2×2 grid average their cells.
    let m = posgeo::metric::DistanceMatrix::from_fn(4, |i, j| (i as f64 - j as f64).abs());
    assert_eq!(block_means(&m, 2, 1.0), vec![0.5, 2.0, 2.0, 0.5]);
    assert_eq!(block_means(&m, 4, 2.0)[1], 2.0);
}

/// Live updates work on a geometry counted with a model tokenizer (the live request carries
/// only the options; the worker keeps the tokenizer) and equal a whole run.
#[test]
fn a_live_update_keeps_the_model_tokenizer_of_its_run() {
    let tokenizer: &[u8] = include_bytes!("../../../../www/models/all-MiniLM-L6-v2/tokenizer.json.gz");
    let mut params = AnalysisParams { max_len: 24, ..Default::default() };
    params.tokenizer = posgeo::corpus::tokenize::TokenizerKind::Model;
    params.encodings.d = 8;
    let req = Request {
        id: 1,
        source: Source::Genesis,
        params: params.clone(),
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: Some("tokenizer.json.gz".into()),
    };
    let mut session = Session::default();
    session.run(&req, Files { tokenizer, ..Files::default() }, &mut |_| {}).unwrap();
    params.encodings.slope = 0.25;
    let live =
        Request { id: 2, params: params.clone(), reuse_geometry: true, model: None, tokenizer: None, ..req.clone() };
    let updated = session.run(&live, Files::default(), &mut |_| {}).unwrap();
    let whole = Request { id: 3, params, ..req };
    let direct = run_files(&whole, Files { tokenizer, ..Files::default() });
    assert_eq!(updated.report, direct.report);
    assert_eq!(updated.report.top_tokens[0][0].0, "[CLS]");
}

fn run_files(req: &Request, files: Files<'_>) -> Payload {
    Session::default().run(req, files, &mut |_| {}).unwrap()
}

#[test]
fn a_streamed_upload_and_its_counts_table_give_the_numbers_of_the_bytes() {
    let params = AnalysisParams {
        mode: posgeo::counts::Mode::Pad,
        max_len: 40,
        encodings: posgeo::encodings::EncodingParams { d: 16, ..Default::default() },
        ..Default::default()
    };
    let source = Source::Bytes { name: "genesis.txt".into(), format: InputFormat::Text, lossy: false };
    let req = Request {
        id: 1,
        source,
        params: params.clone(),
        learned: None,
        reuse_geometry: false,
        model: None,
        tokenizer: None,
    };
    let text = GENESIS.as_bytes();
    let from_bytes = run_files(&req, Files { corpus: text, ..Files::default() });
    let stream = Some(Box::new(Trickle { data: text, step: 7 }) as Box<dyn std::io::Read>);
    let streamed = run_files(&req, Files { corpus_stream: stream, corpus_size: text.len() as u64, ..Files::default() });
    assert_eq!(streamed.report, from_bytes.report);
    // The same corpus as a counts table (uploaded as a file, streamed or not): the same
    // numbers; the report names the table, and the page's mode switches to the table's.
    let corpus = Corpus::from_text(GENESIS);
    let table = posgeo::counts::count_table(&corpus.sequences, &params.tokenizer(), params.max_len, &mut |_| {});
    let mut csv = Vec::new();
    posgeo::counts::write_csv(&table, params.mode, &mut csv).unwrap();
    let condition = AnalysisParams { mode: posgeo::counts::Mode::Condition, ..params };
    let table_req = Request { params: condition, ..req };
    for files in [
        Files { corpus: &csv, ..Files::default() },
        Files {
            corpus_stream: Some(Box::new(Trickle { data: &csv, step: 7 })),
            corpus_size: csv.len() as u64,
            ..Files::default()
        },
    ] {
        let got = run_files(&table_req, files);
        assert_eq!(got.report.counts_table.as_deref(), Some("genesis.txt"));
        assert_eq!(got.report.params.mode, posgeo::counts::Mode::Pad);
        let mut want = from_bytes.report.clone();
        want.counts_table = Some("genesis.txt".into());
        assert_eq!(got.report, want);
    }
}

/// A request with a model: the page's route (a bundle of the model's files, its tokenizer the
/// tokenizer, its position table `learned`) gives the layer rows of the CLI's route
/// (`analysis::layers::run_layers` after the same analysis), in both modes.
#[test]
fn a_model_request_gives_the_layer_rows_of_the_engine() {
    let bundle = posgeo_model::test_support::tiny_bert_bundle(7);
    for mode in [posgeo::counts::Mode::Condition, posgeo::counts::Mode::Pad] {
        let params = AnalysisParams {
            encodings: posgeo::encodings::EncodingParams { d: 16, ..Default::default() },
            max_len: 24,
            layer_sequences: 40,
            mode,
            ..Default::default()
        };
        let req = Request {
            id: 4,
            source: Source::Genesis,
            params: params.clone(),
            learned: None,
            reuse_geometry: false,
            model: Some("tiny".into()),
            tokenizer: None,
        };
        let mut stages = Vec::new();
        let files = Files { model: &bundle, ..Files::default() };
        let payload = Session::default()
            .run(&req, files, &mut |r| {
                if let Response::Progress { stage, .. } = r {
                    stages.push(stage);
                }
            })
            .unwrap();
        assert!(stages.contains(&Stage::Layers), "{stages:?}");
        let (model, tokenizer) = posgeo_model::Model::from_bundle(&bundle).unwrap();
        let (name, bytes) = tokenizer.unwrap();
        let mut p = params.clone();
        p.tokenizer = TokenizerKind::Model;
        p.model = Some(ModelTokenizer::from_bytes(&name, &bytes).unwrap());
        let corpus = Corpus::from_text(GENESIS);
        let mut direct =
            analyze(&corpus, &p, &model.position_table().into_iter().collect::<Vec<_>>(), &mut |_| true).unwrap();
        posgeo_model::layers::run_layers(&mut direct, &corpus.sequences, &model, &mut |_| true).unwrap();
        let (page, engine) = (payload.report, direct.report(false));
        let info = page.layers.clone().unwrap();
        assert_eq!(Some(&info), engine.layers.as_ref());
        assert_eq!((info.num_layers, info.sequences_used), (2, 40));
        for l in 0..=2 {
            for key in [format!("layer:{l}"), format!("layer-residual:{l}")] {
                assert_eq!(page.encodings[&key], engine.encodings[&key], "{key} in {mode:?}");
            }
        }
        // The Shepard samples and the geometry blocks of the rows cover their n_L positions.
        let side = payload.heat.side;
        assert_eq!(payload.heat.encodings["layer:0"].len(), side * side);
        assert!(!payload.shepard["layer-residual:2"].is_empty());
    }
}

/// A model whose first sequences are short measures its layer rows over n_L < n positions:
/// their geometry blocks past n_L are blank (NaN), and the `Done` message still reads back
/// from its JSON as the page reads it (a NaN written as `null` used to make it unreadable,
/// and the page waited for the run forever).
#[test]
fn a_done_with_blank_layer_blocks_reads_back_from_its_json() {
    let bundle = posgeo_model::test_support::tiny_bert_bundle(7);
    // The first eight sequences are short (the model reads them), later ones long.
    let words = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "big", "red", "bird", "tree"];
    let text: String = (0..400)
        .map(|k| {
            let len = if k < 8 { 2 + k % 3 } else { 6 + k % 13 };
            (0..len).map(|i| words[(k * 5 + i * i) % words.len()]).collect::<Vec<_>>().join(" ") + "\n"
        })
        .collect();
    let params = AnalysisParams {
        encodings: posgeo::encodings::EncodingParams { d: 8, ..Default::default() },
        max_len: 20,
        layer_sequences: 8,
        ..Default::default()
    };
    let source = Source::Bytes { name: String::new(), format: InputFormat::Text, lossy: false };
    let (model, learned) = (Some("tiny".to_string()), None);
    let req = Request { id: 5, source, params, learned, reuse_geometry: false, model, tokenizer: None };
    let payload = run_files(&req, Files { corpus: text.as_bytes(), model: &bundle, ..Files::default() });
    let info = payload.report.layers.clone().unwrap();
    assert!(info.positions < payload.report.n, "n_L {} against n {}", info.positions, payload.report.n);
    let blocks = |p: &Payload| p.heat.encodings["layer:1"].iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert!(payload.heat.encodings["layer:1"].iter().any(|x| x.is_nan()), "blank blocks past n_L");
    let mut light = payload.clone();
    let _bulk = light.take_bulk();
    let json = serde_json::to_string(&Response::Done { id: 5, payload: Box::new(light) }).unwrap();
    let Response::Done { payload: back, .. } = serde_json::from_str::<Response>(&json).unwrap() else {
        panic!("not a Done")
    };
    assert_eq!(blocks(&back), blocks(&payload));
    assert_eq!(back.report.encodings, payload.report.encodings);
}

/// A model's own tokenizer.json counts the corpus unless a tokenizer file was chosen (the
/// rule one worker and the helpers both follow); a live update after such a run keeps that
/// tokenizer (the form still says its own) and its layer rows.
#[test]
fn a_models_own_tokenizer_counts_and_a_live_update_keeps_it() {
    let bundle = posgeo_model::test_support::tiny_bert_bundle(7);
    let mut params = AnalysisParams { max_len: 24, layer_sequences: 40, ..Default::default() };
    params.encodings.d = 8;
    let (source, learned, model) = (Source::Genesis, None, Some("tiny".to_string()));
    let req = Request { id: 1, source, params: params.clone(), learned, reuse_geometry: false, model, tokenizer: None };
    let own = counting_tokenizer(&req, &bundle).map(|(name, _)| name);
    assert_eq!(own.as_deref(), Some("tokenizer.json.gz"));
    let chosen = Request { tokenizer: Some("t.json".into()), ..req.clone() };
    assert!(counting_tokenizer(&chosen, &bundle).is_none());
    assert!(counting_tokenizer(&Request { model: None, ..req.clone() }, &bundle).is_none());
    let mut session = Session::default();
    let first = session.run(&req, Files { model: &bundle, ..Files::default() }, &mut |_| {}).unwrap();
    params.encodings.d = 6;
    let live = Request { id: 2, params, reuse_geometry: true, ..req.clone() };
    let updated = session.run(&live, Files::default(), &mut |_| {}).expect("a live update after a model run");
    assert_eq!(updated.report.tokenizer_file, first.report.tokenizer_file);
    assert_eq!(updated.report.top_tokens[0][0].0, "[CLS]");
    assert_eq!(updated.report.encodings["random"].dim, 6);
    assert_eq!(updated.report.encodings["layer:2"], first.report.encodings["layer:2"]);
}
