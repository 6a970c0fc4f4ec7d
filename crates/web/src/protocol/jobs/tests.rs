use super::*;
use posgeo::analysis::{measure_against, spectrum_keeps};
use posgeo::corpus::SequenceStream;
use posgeo::counts::{count_stream, CountsTable, Mode};
use posgeo::encodings::{sinusoidal, EncodingKind};
use posgeo::mds::Spectrum;
use posgeo::measures::stress::Target;
use posgeo::metric::DistanceMatrix;
use std::cell::RefCell;

/// What travels beside a job, natively.
enum Item {
    F64(Vec<f64>),
    U32(Vec<u32>),
    Bytes(Vec<u8>),
}

#[derive(Default)]
struct Native {
    items: Vec<Item>,
    posted: RefCell<Vec<Answer>>,
    /// Heartbeats asked for.
    beats: std::cell::Cell<usize>,
}

impl Beside for Native {
    fn len(&self, i: usize) -> Option<usize> {
        Some(match self.items.get(i)? {
            Item::F64(v) => v.len(),
            Item::U32(v) => v.len(),
            Item::Bytes(v) => v.len(),
        })
    }
    fn f64s_into(&self, i: usize, at: usize, out: &mut [f64]) -> Result<(), JobError> {
        match self.items.get(i) {
            Some(Item::F64(v)) => {
                out.copy_from_slice(v.get(at..at + out.len()).ok_or(JobError::Beside { item: i, flaw: Flaw::Short })?);
                Ok(())
            }
            _ => Err(JobError::Beside { item: i, flaw: Flaw::NotA("f64s") }),
        }
    }
    fn u32s(&self, i: usize) -> Result<Vec<u32>, JobError> {
        match self.items.get(i) {
            Some(Item::U32(v)) => Ok(v.clone()),
            _ => Err(JobError::Beside { item: i, flaw: Flaw::NotA("u32s") }),
        }
    }
    fn bytes(&self, i: usize) -> Result<Vec<u8>, JobError> {
        match self.items.get(i) {
            Some(Item::Bytes(v)) => Ok(v.clone()),
            _ => Err(JobError::Beside { item: i, flaw: Flaw::NotA("bytes") }),
        }
    }
    fn identity(&self, i: usize) -> Result<(usize, u64), JobError> {
        let b = self.bytes(i)?;
        Ok(identity(b.len(), |k| b[k]))
    }
    fn file_from(&self, i: usize, from: u64) -> Result<Box<dyn Read + '_>, JobError> {
        match self.items.get(i) {
            Some(Item::Bytes(v)) => {
                Ok(Box::new(v.get(from as usize..).ok_or(JobError::Beside { item: i, flaw: Flaw::Short })?))
            }
            _ => Err(JobError::Beside { item: i, flaw: Flaw::NotA("a file") }),
        }
    }
    fn post(&self, answer: &Answer) {
        self.posted.borrow_mut().push(answer.clone());
    }
    fn alive(&self) {
        self.beats.set(self.beats.get() + 1);
    }
}

/// `message` through postcard and back gives the same bytes.
fn round_trips<T: Serialize + for<'a> Deserialize<'a>>(message: &T) -> T {
    let bytes = encode(message).expect("encodes");
    let back: T = decode(&bytes).expect("decodes");
    assert_eq!(encode(&back).expect("encodes again"), bytes);
    back
}

const ODD: [f64; 5] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1.5e-310];

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn d_of(n: usize) -> DistanceMatrix {
    let x = sinusoidal(n, 4, 10.0);
    DistanceMatrix::from_fn(n, |i, j| {
        x.row(i).iter().zip(x.row(j)).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt() + f64::from(u8::from(i != j))
    })
}

#[test]
fn every_job_round_trips_with_nan_and_infinities() {
    let params = AnalysisParams { alpha: f64::INFINITY, ..AnalysisParams::default() };
    let bare_sinusoid = bare(&Encoding {
        kind: EncodingKind::Sinusoidal,
        points: sinusoidal(3, 2, 10.0),
        parameters: 0,
        iterations: 0,
        stop: None,
    });
    let part = CountPart {
        start: 3,
        end: 99,
        format: InputFormat::Jsonl { field: "text".into() },
        lossy: true,
        params: params.clone(),
        tokenizer: Some("t".into()),
        keep: 2,
        faults: true,
    };
    let jobs = [
        Job::Count { part, tokenizer: vec![0, 255] },
        Job::Spectrum { n: 4, params },
        Job::SmacofShare { n: 9, dim: 2, blocks: 1..3 },
        Job::SmacofRound { x: ODD.to_vec(), step: true },
        Job::SmacofEnd,
        Job::Measure { n: 3, sum_sq: f64::NAN, x_dim: 0, encodings: vec![bare_sinusoid] },
        Job::Layers { plan: Plan::new(vec![vec![1, 2], vec![3]], 8, 2, 1, Mode::Pad, 0), batches: vec![vec![0, 1]] },
    ];
    for job in &jobs {
        let back = round_trips(job);
        match (job, &back) {
            (Job::SmacofRound { x: a, .. }, Job::SmacofRound { x: b, .. }) => assert_eq!(bits(a), bits(b)),
            (Job::Measure { sum_sq: a, .. }, Job::Measure { sum_sq: b, .. }) => assert_eq!(a.to_bits(), b.to_bits()),
            (Job::Spectrum { params: a, .. }, Job::Spectrum { params: b, .. }) => {
                assert!(a.alpha.is_infinite() && b.alpha == a.alpha);
            }
            _ => assert_eq!(&back, job),
        }
    }
}

#[test]
fn every_answer_round_trips_with_nan_and_infinities() {
    let d = d_of(5);
    let target = Target::new(&d).expect("target");
    let enc = Encoding {
        kind: EncodingKind::Sinusoidal,
        points: sinusoidal(5, 2, 10.0),
        parameters: 0,
        iterations: 0,
        stop: None,
    };
    let measures = measure_against(target, Points { n: 5, dim: 0, data: Vec::new() }, 5, &[enc]);
    let mut sums = LayerSums::new(2, 3, 4);
    sums.by_position[0] = f64::NAN;
    sums.by_position[1] = f64::NEG_INFINITY;
    let answers = [
        Answer::Counted { table: vec![1, 2, 3], first: vec!["a b".into()] },
        Answer::Spectrum { eigenvalues: ODD.to_vec(), eigenvectors: ODD.to_vec() },
        Answer::EigenFailed { message: "no".into() },
        Answer::SmacofPart { values: ODD.to_vec() },
        Answer::Measured { measures },
        Answer::Alive,
        Answer::LayerProgress { done: 3 },
        Answer::LayerSums { sums },
        Answer::Failed { message: "why".into() },
    ];
    for answer in &answers {
        let back = round_trips(answer);
        match (answer, &back) {
            (Answer::Spectrum { eigenvalues: a, .. }, Answer::Spectrum { eigenvectors: b, .. })
            | (Answer::SmacofPart { values: a }, Answer::SmacofPart { values: b }) => assert_eq!(bits(a), bits(b)),
            (Answer::LayerSums { sums: a }, Answer::LayerSums { sums: b }) => {
                assert_eq!(bits(&a.by_position), bits(&b.by_position));
            }
            _ => {}
        }
    }
    assert!(decode::<Answer>(&[200, 1]).is_err() && decode::<Job>(&[]).is_err());
}

#[test]
fn spectrum_is_the_workers() {
    let (n, params) = (6, AnalysisParams::default());
    let d = d_of(n);
    let native = Native { items: vec![Item::F64(d.as_slice().to_vec())], ..Native::default() };
    let answer = Helper::default().serve(Job::Spectrum { n, params: params.clone() }, &native);
    let direct = Spectrum::of_distances_keeping(&d, |v| spectrum_keeps(&params, v)).expect("spectrum");
    match answer {
        Some(Answer::Spectrum { eigenvalues, eigenvectors }) => {
            assert_eq!(bits(&eigenvalues), bits(&direct.eigenvalues));
            assert_eq!(bits(&eigenvectors), bits(direct.vectors()));
        }
        other => panic!("{other:?}"),
    }
    let wrong = Helper::default().serve(Job::Spectrum { n: n + 1, params }, &native);
    assert!(matches!(wrong, Some(Answer::Failed { .. })));
}

#[test]
fn smacof_rounds_are_the_workers_parts() {
    let (n, dim) = (40, 2);
    let d = d_of(n);
    let plan = RowPlan::new(n);
    let blocks = 0..plan.len().min(2);
    let rows = plan.span(blocks.clone());
    let mut helper = Helper::default();
    let x = sinusoidal(n, dim, 10.0);
    // A round before any share, and a share of the wrong size, fail with their message.
    assert!(matches!(
        helper.serve(Job::SmacofRound { x: x.data.clone(), step: true }, &Native::default()),
        Some(Answer::Failed { .. })
    ));
    let short = Native { items: vec![Item::F64(vec![0.0; 3])], ..Native::default() };
    assert!(helper.serve(Job::SmacofShare { n, dim, blocks: blocks.clone() }, &short).is_none());
    assert!(matches!(
        helper.serve(Job::SmacofRound { x: x.data.clone(), step: true }, &short),
        Some(Answer::Failed { .. })
    ));
    let share =
        Native { items: vec![Item::F64(d.as_slice()[rows.start * n..rows.end * n].to_vec())], ..Native::default() };
    assert!(helper.serve(Job::SmacofShare { n, dim, blocks: blocks.clone() }, &share).is_none());
    for step in [false, true] {
        let direct = rows::part_of(&x, &rows::norms(&x), &d, &plan, blocks.clone(), step);
        let mut want = direct.stresses;
        want.extend(direct.row_sums);
        want.extend(direct.sums);
        match helper.serve(Job::SmacofRound { x: x.data.clone(), step }, &share) {
            Some(Answer::SmacofPart { values }) => assert_eq!(bits(&values), bits(&want)),
            other => panic!("{other:?}"),
        }
    }
    assert!(helper.serve(Job::SmacofEnd, &share).is_none());
    assert!(matches!(helper.serve(Job::SmacofRound { x: x.data, step: false }, &share), Some(Answer::Failed { .. })));
}

#[test]
fn measures_are_the_workers() {
    let n = 12;
    let d = d_of(n);
    let target = Target::new(&d).expect("target");
    let x = sinusoidal(n, 3, 7.0);
    let encodings: Vec<Encoding> = [(EncodingKind::Sinusoidal, 4), (EncodingKind::Sinusoidal, 2)]
        .iter()
        .map(|&(kind, dim)| Encoding {
            kind,
            points: sinusoidal(n, dim, 10.0),
            parameters: 0,
            iterations: 0,
            stop: None,
        })
        .collect();
    let direct = measure_against(target.clone(), x.clone(), n, &encodings);
    let mut items =
        vec![Item::F64(target.upper().to_vec()), Item::U32(target.doubled_ranks().to_vec()), Item::F64(x.data.clone())];
    items.extend(encodings.iter().map(|e| Item::F64(e.points.data.clone())));
    let native = Native { items, ..Native::default() };
    let job = Job::Measure { n, sum_sq: target.sum_sq(), x_dim: 3, encodings: encodings.iter().map(bare).collect() };
    match Helper::default().serve(job.clone(), &native) {
        Some(Answer::Measured { measures }) => assert_eq!(encode(&measures), encode(&direct)),
        other => panic!("{other:?}"),
    }
    let Job::Measure { encodings: bad, .. } = job else { unreachable!() };
    let wrong = Job::Measure { n: n + 1, sum_sq: target.sum_sq(), x_dim: 3, encodings: bad };
    assert!(matches!(Helper::default().serve(wrong, &native), Some(Answer::Failed { .. })));
}

#[test]
fn counted_parts_append_to_the_whole() {
    let text = "a b c\nb c\n\nd a b a\nc\nx y z w\n".as_bytes().to_vec();
    let params = AnalysisParams::default();
    let job = |start: u64, end: u64| Job::Count {
        part: CountPart {
            start,
            end,
            format: InputFormat::Text,
            lossy: false,
            params: params.clone(),
            tokenizer: None,
            keep: 3,
            faults: false,
        },
        tokenizer: Vec::new(),
    };
    let native = Native { items: vec![Item::Bytes(text.clone())], ..Native::default() };
    let mut helper = Helper::default();
    let size = text.len() as u64;
    let mut all = CountsTable::empty_text(params.max_len);
    let mut first = Vec::new();
    for (start, end) in [(0, size / 2), (size / 2, size)] {
        match helper.serve(job(start, end), &native) {
            Some(Answer::Counted { table, first: f }) => {
                all.append(CountsTable::from_bytes(&table).expect("table"));
                first.extend(f.into_iter().take(3 - first.len().min(3)));
            }
            other => panic!("{other:?}"),
        }
    }
    let mut stream = SequenceStream::new(&text[..], &InputFormat::Text, false).expect("stream");
    let whole = count_stream(&mut stream, &params.tokenizer(), params.max_len, 3, &mut || true).expect("counts");
    assert_eq!(all.to_bytes(), whole.table.to_bytes());
    assert_eq!(first, whole.first);
    assert!(native.beats.get() >= 2, "each part's count says it is alive as it goes");
    let no_file = Helper::default().serve(job(0, size), &Native::default());
    assert!(matches!(no_file, Some(Answer::Failed { .. })));
}

#[test]
fn layer_batches_are_the_workers() {
    let bundle = posgeo_model::test_support::tiny_bert_bundle(7);
    let (model, _) = Model::from_bundle(&bundle).expect("model");
    let plan = Plan::new(vec![vec![101, 2023, 102], vec![101, 2003, 1037, 102], vec![101, 102]], 8, 4, 1, Mode::Pad, 0);
    let batches = vec![vec![0, 1], vec![2]];
    let direct = posgeo_model::run(&model, &plan, &batches, &mut |_| true).expect("sums");
    let native = Native { items: vec![Item::Bytes(bundle)], ..Native::default() };
    let mut helper = Helper::default();
    for _ in 0..2 {
        // The second job finds the model loaded.
        match helper.serve(Job::Layers { plan: plan.clone(), batches: batches.clone() }, &native) {
            Some(Answer::LayerSums { sums }) => assert_eq!(sums, direct),
            other => panic!("{other:?}"),
        }
    }
    let done: Vec<usize> = native
        .posted
        .borrow()
        .iter()
        .map(|a| match a {
            Answer::LayerProgress { done } => *done,
            _ => 0,
        })
        .collect();
    assert_eq!(done, [1, 2, 1, 2]);
    let broken = Native { items: vec![Item::Bytes(vec![1, 2, 3])], ..Native::default() };
    assert!(matches!(Helper::default().serve(Job::Layers { plan, batches }, &broken), Some(Answer::Failed { .. })));
}

/// A job that cannot be read is a wire error (its words say so), and a job missing what travels
/// beside it fails with that item named: the helper's answer is [`Answer::Failed`] in both.
#[test]
fn malformed_jobs_are_refused_by_kind() {
    match decode::<Job>(&[0xff, 0xff, 0xff, 7]) {
        Err(e @ JobError::Wire { writing: false, .. }) => {
            assert!(e.to_string().starts_with("a helper message could not be read: "), "{e}");
        }
        other => panic!("{other:?}"),
    }
    let job = Job::Spectrum { n: 3, params: AnalysisParams::default() };
    match Helper::default().serve(job, &Native::default()) {
        Some(Answer::Failed { message }) => assert_eq!(message, "D is not 3×3"),
        other => panic!("{other:?}"),
    }
    let share = Job::SmacofShare { n: 4, dim: 2, blocks: 0..1 };
    let mut helper = Helper::default();
    assert!(helper.serve(share, &Native::default()).is_none(), "a share has no answer");
    match helper.serve(Job::SmacofRound { x: vec![0.0; 8], step: false }, &Native::default()) {
        Some(Answer::Failed { message }) => {
            assert_eq!(message, JobError::Beside { item: 0, flaw: Flaw::Absent }.to_string())
        }
        other => panic!("{other:?}"),
    }
}
