//! The page's logic without a browser: every rule of run, supersede, cancel, errors, files
//! and links, driven through `update` as the DOM layer drives it.

use super::*;
use crate::protocol::{self, Source};
use crate::url::Builtin;
use crate::view::export::ImageFormat;

fn started() -> Model {
    let mut m = Model::default();
    let fx = update(&mut m, Msg::Start(Box::default()));
    assert!(matches!(fx[..], [Effect::ShowForm(..), Effect::ShowDemo(..)]));
    m.worker_started = true; // as after a first run: a worker exists
    m
}

/// A form other than the default one (whose first run the page answers from the shipped
/// results, see `shipped_first_run_*`), so that runs go through the worker.
fn form() -> Form {
    let mut st = PageState::default();
    st.synth.seed = 1;
    Form::from_state(&st)
}

#[test]
fn a_live_update_before_the_shipped_results_are_drawn_starts_the_worker() {
    let mut m = started();
    m.worker_started = false;
    update(&mut m, Msg::Run { form: Form::from_state(&PageState::default()), at: 0.0 });
    let mut live = Form::from_state(&PageState::default());
    live.values.insert("opt-rank", "2".into());
    assert!(update(&mut m, Msg::Live { form: live, at: 0.1 }).contains(&Effect::RestartWorker));
    assert!(!update(&mut m, Msg::Rendered { id: 1, at: 0.3 }).contains(&Effect::RestartWorker), "only one");
    let fx = update(&mut m, Msg::WorkerReady);
    let jobs: Vec<bool> =
        fx.iter().filter_map(|e| if let Effect::Post(j) = e { Some(j.request.reuse_geometry) } else { None }).collect();
    assert_eq!(jobs, [false, true], "the shipped run's request first, then the live update");
}

#[test]
fn a_first_run_that_is_not_the_shipped_one_starts_the_worker_at_once() {
    let mut m = started();
    m.worker_started = false;
    let fx = update(&mut m, Msg::Run { form: form(), at: 0.0 });
    assert!(fx.contains(&Effect::RestartWorker) && posted(&fx).is_none(), "{fx:?}");
    assert!(posted(&update(&mut m, Msg::WorkerReady)).is_some());
}

#[test]
fn the_default_first_run_is_shown_at_once_and_still_posted() {
    let mut m = started();
    m.worker_started = false; // the page as it opens
    let fx = update(&mut m, Msg::Run { form: Form::from_state(&PageState::default()), at: 0.0 });
    assert!(fx.iter().any(|e| matches!(e, Effect::RenderResults(1))), "{fx:?}");
    assert!(!fx.contains(&Effect::RestartWorker), "the worker waits until the charts are drawn");
    assert!(m.results.is_some() && m.running.is_none());
    let fx = update(&mut m, Msg::Rendered { id: 1, at: 0.3 });
    assert!(fx.contains(&Effect::RestartWorker), "{fx:?}");
    assert!(m.geometry_kept, "its queued run will keep the geometry");
    // A live update before the worker is up waits behind the run whose geometry it reuses
    // (and starts the worker, even before the charts are drawn).
    let mut live = Form::from_state(&PageState::default());
    live.values.insert("opt-slope", "0.125".into());
    update(&mut m, Msg::Live { form: live, at: 1.0 });
    let fx = update(&mut m, Msg::WorkerReady);
    let jobs: Vec<&Job> = fx.iter().filter_map(|e| if let Effect::Post(j) = e { Some(&**j) } else { None }).collect();
    assert_eq!(jobs.iter().map(|j| j.request.reuse_geometry).collect::<Vec<_>>(), [false, true]);
    let job = jobs[0].clone();
    // Its answer, for a run no longer current, changes nothing.
    let shown = m.results.clone();
    assert!(update(&mut m, Msg::Worker { response: done_for(&job), at: 5.0 }).is_empty());
    assert_eq!(m.results, shown);
    assert!(m.running.is_some(), "the live update runs");
}

fn posted(fx: &[Effect]) -> Option<&Job> {
    fx.iter().find_map(|e| if let Effect::Post(j) = e { Some(&**j) } else { None })
}

fn status(fx: &[Effect]) -> Option<Status> {
    fx.iter().rev().find_map(|e| if let Effect::Status(s, _) = e { Some(*s) } else { None })
}

fn error(fx: &[Effect]) -> Option<&str> {
    fx.iter().find_map(|e| if let Effect::Error(Some(m)) = e { Some(m.as_str()) } else { None })
}

/// Runs a small synthetic request for real (the worker's pure function) and answers with it.
fn done_for(job: &Job) -> Response {
    let mut req = job.request.clone();
    if let Source::Synthetic(s) = &mut req.source {
        s.sequences = 60;
        s.positions = 8;
    }
    req.params.encodings.d = 4;
    let payload = protocol::run(&req, b"", b"", &mut |_| {}).expect("a small run succeeds");
    Response::Done { id: job.request.id, payload: Box::new(payload) }
}

#[test]
fn a_run_waits_for_the_worker_then_posts_and_shows_results() {
    let mut m = started();
    let fx = update(&mut m, Msg::Run { form: form(), at: 1000.0 });
    assert_eq!(posted(&fx), None, "no worker yet: the job is queued");
    assert_eq!(status(&fx), Some(Status::Running));
    assert!(fx.contains(&Effect::CancelEnabled(true)));
    let fx = update(&mut m, Msg::Worker { response: Response::Ready, at: 1100.0 });
    let job = posted(&fx).expect("posted once the worker is ready").clone();
    assert_eq!(job.corpus, CorpusData::None);
    assert!(matches!(job.request.source, Source::Synthetic(_)));
    let fx = update(&mut m, Msg::Worker { response: done_for(&job), at: 2000.0 });
    assert!(fx.contains(&Effect::RenderResults(job.request.id)) && m.results.is_some());
    assert!(!m.is_running());
    let fx = update(&mut m, Msg::Rendered { id: job.request.id, at: 2500.0 });
    assert_eq!(fx, vec![Effect::Status(Status::Done, "done in 1.50 s".into())]);
}

#[test]
fn a_new_run_supersedes_the_running_one_and_late_answers_are_ignored() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    let first = posted(&update(&mut m, Msg::Run { form: form(), at: 0.0 })).unwrap().clone();
    let fx = update(&mut m, Msg::Run { form: form(), at: 10.0 });
    assert!(fx.contains(&Effect::RestartWorker), "the old computation is stopped");
    assert_eq!(posted(&fx), None, "the new job waits for the fresh worker");
    let second = posted(&update(&mut m, Msg::WorkerReady)).unwrap().clone();
    assert_ne!(first.request.id, second.request.id);
    // The superseded run's answers change nothing.
    assert!(update(&mut m, Msg::Worker { response: done_for(&first), at: 20.0 }).is_empty());
    let stale = Response::Progress { id: first.request.id, stage: posgeo::analysis::Stage::Mds, fraction: 0.5 };
    assert!(update(&mut m, Msg::Worker { response: stale, at: 21.0 }).is_empty());
    assert!(m.results.is_none() && m.is_running());
    let fx = update(&mut m, Msg::Worker { response: done_for(&second), at: 30.0 });
    assert!(fx.contains(&Effect::RenderResults(second.request.id)));
}

#[test]
fn progress_walks_the_stages_in_order() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    let id = posted(&update(&mut m, Msg::Run { form: form(), at: 0.0 })).unwrap().request.id;
    let mut last = -1.0;
    for stage in posgeo::analysis::Stage::ALL {
        for fraction in [0.0, 0.5] {
            let fx = update(&mut m, Msg::Worker { response: Response::Progress { id, stage, fraction }, at: 1.0 });
            let Some(Effect::Progress(p)) = fx.first() else { panic!("{fx:?}") };
            assert!(*p > last && *p < 1.0);
            last = *p;
        }
    }
}

#[test]
fn cancel_keeps_the_results_and_restarts_the_worker() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    let job = posted(&update(&mut m, Msg::Run { form: form(), at: 0.0 })).unwrap().clone();
    update(&mut m, Msg::Worker { response: done_for(&job), at: 1.0 });
    let before = m.results.clone();
    let second = posted(&update(&mut m, Msg::Run { form: form(), at: 2.0 })).unwrap().clone();
    let fx = update(&mut m, Msg::Cancel);
    assert!(fx.contains(&Effect::RestartWorker));
    assert_eq!(status(&fx), Some(Status::Idle));
    assert!(!m.is_running() && Rc::ptr_eq(m.results.as_ref().unwrap(), before.as_ref().unwrap()));
    assert!(update(&mut m, Msg::Worker { response: done_for(&second), at: 3.0 }).is_empty(), "cancelled");
    // Cancel with nothing running only disables the button.
    assert_eq!(update(&mut m, Msg::Cancel), vec![Effect::CancelEnabled(false)]);
}

#[test]
fn errors_keep_the_last_results() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    let job = posted(&update(&mut m, Msg::Run { form: form(), at: 0.0 })).unwrap().clone();
    update(&mut m, Msg::Worker { response: done_for(&job), at: 1.0 });
    // A bad option never reaches the worker.
    let mut bad = form();
    bad.values.insert("opt-d", String::new());
    let fx = update(&mut m, Msg::Run { form: bad, at: 2.0 });
    assert_eq!(error(&fx), Some(r#"d: "" is not a valid number"#));
    assert_eq!((posted(&fx), status(&fx)), (None, Some(Status::Error)));
    bad = form();
    bad.values.insert("opt-max_len", "1".into());
    assert_eq!(
        error(&update(&mut m, Msg::Run { form: bad, at: 2.0 })),
        Some("invalid option max_len: must be at least 2")
    );
    // The worker's error: shown, results kept.
    let id = posted(&update(&mut m, Msg::Run { form: form(), at: 3.0 })).unwrap().request.id;
    let fx = update(&mut m, Msg::Worker { response: Response::Error { id, message: "boom".into() }, at: 4.0 });
    assert_eq!((error(&fx), status(&fx)), (Some("boom"), Some(Status::Error)));
    assert!(m.results.is_some());
    // A dying worker: a message, a fresh worker, the results kept, and the next run works.
    posted(&update(&mut m, Msg::Run { form: form(), at: 5.0 })).unwrap();
    let fx = update(&mut m, Msg::WorkerDied("RuntimeError: unreachable".into()));
    assert!(fx.contains(&Effect::RestartWorker) && error(&fx).unwrap().contains("Earlier results are kept"));
    assert!(m.results.is_some());
    assert_eq!(posted(&update(&mut m, Msg::Run { form: form(), at: 6.0 })), None);
    assert!(posted(&update(&mut m, Msg::WorkerReady)).is_some());
}

#[test]
fn empty_paste_and_missing_file_are_messages() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    let mut f = form();
    f.source = SourceKind::Paste;
    f.paste = "  \n ".into();
    assert!(error(&update(&mut m, Msg::Run { form: f.clone(), at: 0.0 })).unwrap().contains("paste box is empty"));
    f.paste = "a b c\nd e f\n".into();
    let fx = update(&mut m, Msg::Run { form: f, at: 0.0 });
    assert_eq!(posted(&fx).unwrap().corpus, CorpusData::Text("a b c\nd e f\n".into()));
    let mut f = form();
    f.source = SourceKind::File;
    assert!(error(&update(&mut m, Msg::Run { form: f, at: 0.0 })).unwrap().contains("no file chosen"));
}

#[test]
fn run_while_a_file_is_being_read_waits_for_it() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    let fx = update(&mut m, Msg::FileChosen { slot: Slot::Corpus, name: "big.csv".into(), size: 5e6 });
    assert!(fx.contains(&Effect::ReadFile(Slot::Corpus)) && fx.contains(&Effect::SelectSource(SourceKind::File)));
    let mut f = form();
    f.source = SourceKind::File;
    let fx = update(&mut m, Msg::Run { form: f, at: 0.0 });
    assert_eq!(posted(&fx), None, "nothing runs on the previous corpus");
    assert!(matches!(&fx[..], [Effect::Error(None), Effect::Status(Status::Running, t)] if t.contains("big.csv")));
    let fx = update(
        &mut m,
        Msg::FileLoaded { slot: Slot::Corpus, name: "big.csv".into(), size: 5e6, detail: String::new() },
    );
    let job = posted(&fx).expect("the run starts once the file is read");
    assert_eq!(job.corpus, CorpusData::File);
    let Source::Bytes { name, format, .. } = &job.request.source else { panic!() };
    assert_eq!(name, "big.csv");
    assert!(matches!(format, posgeo::corpus::InputFormat::Csv { delimiter: b',', .. }));
}

#[test]
fn a_learned_table_being_read_holds_the_run_and_then_goes_along() {
    let mut m = started();
    update(&mut m, Msg::WorkerReady);
    update(&mut m, Msg::FileChosen { slot: Slot::Learned, name: "m.safetensors".into(), size: 1e3 });
    let mut f = form();
    f.learned_tensors = vec!["wpe.weight".into()];
    assert_eq!(posted(&update(&mut m, Msg::Run { form: f, at: 0.0 })), None);
    let fx = update(
        &mut m,
        Msg::FileLoaded { slot: Slot::Learned, name: "m.safetensors".into(), size: 1e3, detail: "safetensors".into() },
    );
    let job = posted(&fx).unwrap();
    assert!(job.learned);
    assert_eq!(job.request.learned.as_ref().map(|l| l.tensors.clone()), Some(vec!["wpe.weight".to_string()]));
    update(&mut m, Msg::Cleared(Slot::Learned));
    let fx = update(&mut m, Msg::Run { form: form(), at: 1.0 });
    assert!(fx.contains(&Effect::RestartWorker), "supersedes the run still going");
    assert!(!posted(&update(&mut m, Msg::WorkerReady)).unwrap().learned);
    // An unreadable or oversized file is a message.
    let fx = update(&mut m, Msg::FileChosen { slot: Slot::Corpus, name: "huge.txt".into(), size: 2e9 });
    assert!(error(&fx).unwrap().contains("too large") && !fx.contains(&Effect::ReadFile(Slot::Corpus)));
    update(&mut m, Msg::FileChosen { slot: Slot::Corpus, name: "x.txt".into(), size: 10.0 });
    let fx = update(&mut m, Msg::FileUnreadable { slot: Slot::Corpus, name: "x.txt".into() });
    assert_eq!(error(&fx), Some("cannot read x.txt"));
    assert_eq!(m.corpus_file, FileSlot::Empty);
}

#[test]
fn the_link_follows_the_last_run_and_the_view() {
    let mut m = Model::default();
    let link = "?corpus=genesis&metric=fisher_rao&d=48&shepard=rope&map3d=-45%2C10";
    let pairs =
        [("corpus", "genesis"), ("d", "48"), ("metric", "fisher_rao"), ("shepard", "rope"), ("map3d", "-45,10")];
    let fx = update(&mut m, Msg::Start(Box::new(PageState::from_pairs(pairs))));
    let Effect::ShowForm(f, map) = &fx[0] else { panic!() };
    assert_eq!(
        (f.source, f.values["opt-d"].as_str(), f.values["opt-metric"].as_str()),
        (SourceKind::Genesis, "48", "fisher_rao")
    );
    assert_eq!(*map, MapView { three_d: true, yaw: -45, pitch: 10 });
    assert_eq!(m.link(), link);
    assert_eq!(m.shown.corpus, Builtin::Genesis);
    // Dragging turns the view; letting go writes the link.
    update(&mut m, Msg::DragStart { x: 100, y: 100 });
    let fx = update(&mut m, Msg::DragMove { x: 120, y: 90 });
    assert_eq!(fx[0], Effect::ShowMap(MapView { three_d: true, yaw: -35, pitch: 5 }));
    assert_eq!(
        update(&mut m, Msg::DragEnd),
        vec![Effect::WriteUrl("?corpus=genesis&metric=fisher_rao&d=48&shepard=rope&map3d=-35%2C5".into())]
    );
    // The 2-D map does not drag.
    update(&mut m, Msg::MapMoved(MapView { three_d: false, yaw: 0, pitch: 0 }));
    update(&mut m, Msg::DragStart { x: 0, y: 0 });
    assert!(update(&mut m, Msg::DragMove { x: 50, y: 50 }).is_empty());
    // A run writes its own options into the link.
    let mut f = form();
    f.values.insert("opt-d", "12".into());
    let fx = update(&mut m, Msg::Run { form: f, at: 0.0 });
    assert!(fx.contains(&Effect::WriteUrl("?synth_seed=1&d=12&shepard=rope".into())), "{fx:?}");
}

#[test]
fn table_sorting_and_exports() {
    let mut m = started();
    assert!(update(&mut m, Msg::Export(Export::Report)).is_empty(), "nothing to export yet");
    update(&mut m, Msg::WorkerReady);
    let job = posted(&update(&mut m, Msg::Run { form: form(), at: 0.0 })).unwrap().clone();
    update(&mut m, Msg::Worker { response: done_for(&job), at: 1.0 });
    let p = m.results.clone().unwrap();
    use crate::view::table::{rows, Column};
    update(&mut m, Msg::Sort(Column::ScaledStress));
    let asc: Vec<f64> = rows(&p.report, m.view.sort).iter().map(|r| r.cells[1].value.parse().unwrap()).collect();
    assert!(asc.windows(2).all(|w| w[0] <= w[1]), "{asc:?}");
    update(&mut m, Msg::Sort(Column::ScaledStress));
    let desc: Vec<f64> = rows(&p.report, m.view.sort).iter().map(|r| r.cells[1].value.parse().unwrap()).collect();
    assert_eq!(desc, asc.iter().rev().copied().collect::<Vec<_>>());
    let e = Export::Chart(ChartKind::Heatmap, ImageFormat::Svg);
    assert_eq!(update(&mut m, Msg::Export(e)), vec![Effect::Download(e)]);
    let svg = e.file(&p, &m.view, (320, 240)).unwrap().unwrap();
    assert!(svg.name == "posgeo-heatmap.svg" && svg.bytes.starts_with(b"<svg"));
    let csv = Export::StressTable.file(&p, &m.view, (1, 1)).unwrap().unwrap();
    assert!(String::from_utf8(csv.bytes).unwrap().starts_with(posgeo::report::STRESS_COLUMNS.join(",").as_str()));
    assert!(Export::Chart(ChartKind::Map, ImageFormat::Png).file(&p, &m.view, (1, 1)).is_none());
}

#[test]
fn live_parameters_reuse_the_kept_geometry() {
    let mut m = started();
    let mut f = form();
    f.values.insert("opt-slope", "0.25".into());
    assert!(update(&mut m, Msg::Live { form: f.clone(), at: 0.0 }).is_empty(), "nothing to update yet");
    update(&mut m, Msg::WorkerReady);
    let job = posted(&update(&mut m, Msg::Run { form: form(), at: 0.0 })).unwrap().clone();
    update(&mut m, Msg::Worker { response: done_for(&job), at: 1.0 });
    // An encoding-only change: posted at once, no bytes, no restart, the geometry reused.
    let fx = update(&mut m, Msg::Live { form: f.clone(), at: 2.0 });
    assert!(!fx.contains(&Effect::RestartWorker));
    let live = posted(&fx).expect("posted").clone();
    assert!(live.request.reuse_geometry && live.corpus == CorpusData::None);
    assert_eq!(live.request.params.encodings.slope, 0.25);
    // Moves while it runs: only the latest waits, and follows once the first is done.
    let mut g = f.clone();
    g.values.insert("opt-slope", "0.3".into());
    assert!(update(&mut m, Msg::Live { form: g.clone(), at: 3.0 }).is_empty());
    g.values.insert("opt-slope", "0.4".into());
    assert!(update(&mut m, Msg::Live { form: g, at: 4.0 }).is_empty());
    let mut req = live.request.clone();
    req.reuse_geometry = false;
    let fx = update(&mut m, Msg::Worker { response: done_for(&Job { request: req, ..live }), at: 5.0 });
    let next = posted(&fx).expect("the waiting update follows");
    assert_eq!(next.request.params.encodings.slope, 0.4);
    assert!(fx.iter().any(|e| matches!(e, Effect::WriteUrl(q) if q.contains("slope=0.25"))));
    // A learned table chosen since the run is not live either (the worker keeps the old one).
    let done = done_for(&Job {
        request: Request { reuse_geometry: false, model: None, tokenizer: None, ..next.request.clone() },
        ..next.clone()
    });
    update(&mut m, Msg::Worker { response: done, at: 5.5 });
    update(&mut m, Msg::FileChosen { slot: Slot::Learned, name: "t.npy".into(), size: 10.0 });
    update(&mut m, Msg::FileLoaded { slot: Slot::Learned, name: "t.npy".into(), size: 10.0, detail: String::new() });
    let mut k = f.clone();
    k.values.insert("opt-slope", "0.9".into());
    assert!(update(&mut m, Msg::Live { form: k, at: 5.6 }).is_empty());
    // A geometry option is not live: it waits for Run.
    let mut h = form();
    h.values.insert("opt-max_len", "30".into());
    assert!(update(&mut m, Msg::Live { form: h, at: 6.0 }).is_empty());
    // After a cancel the fresh worker keeps nothing: no live update until the next run.
    update(&mut m, Msg::Cancel);
    update(&mut m, Msg::WorkerReady);
    assert!(update(&mut m, Msg::Live { form: f, at: 7.0 }).is_empty());
}

#[test]
fn the_lecture_opens_from_the_hash_steps_with_keys_and_keeps_its_step_in_the_link() {
    let mut m = started();
    // Keys do nothing while the dashboard shows.
    assert!(update(&mut m, Msg::LectureKey("PageDown".into())).is_empty());
    assert_eq!(update(&mut m, Msg::Lecture(Some(3))), vec![Effect::ShowLecture(Some(3))]);
    let fx = update(&mut m, Msg::LectureKey("PageDown".into()));
    assert_eq!(fx[0], Effect::ShowLecture(Some(4)));
    assert!(matches!(&fx[1], Effect::WriteUrl(u) if u.ends_with("#lecture/4")), "{fx:?}");
    update(&mut m, Msg::LectureKey("ArrowLeft".into()));
    update(&mut m, Msg::LectureKey("PageUp".into()));
    assert_eq!(m.view.lecture, Some(2));
    assert!(update(&mut m, Msg::LectureKey("x".into())).is_empty());
    let fx = update(&mut m, Msg::LectureKey("Escape".into()));
    assert_eq!(fx[0], Effect::ShowLecture(None));
    assert!(matches!(&fx[1], Effect::WriteUrl(u) if !u.contains('#')), "{fx:?}");
    // A run keeps the lecture's step in the link it writes.
    update(&mut m, Msg::Lecture(Some(9)));
    let fx = update(&mut m, Msg::Run { form: form(), at: 0.0 });
    assert!(fx.iter().any(|e| matches!(e, Effect::WriteUrl(u) if u.ends_with("#lecture/9"))), "{fx:?}");
}
