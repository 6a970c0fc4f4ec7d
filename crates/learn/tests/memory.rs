//! The fused trainer's memory, measured: a counting allocator sees every byte it takes, which
//! must be what the formula of docs/MATH.md §16 ("Memory") says, and a training step must
//! keep nothing (its only allocations are the products' packing scratch, freed at once).

use posgeo::analysis::{analyze, AnalysisParams};
use posgeo::corpus::Corpus;
use posgeo::demos::synth::{generate, SynthParams};
use posgeo_learn::data::Batches;
use posgeo_learn::fused::{layout::memory_bytes, Fused};
use posgeo_learn::{init, Context, LearnParams, Signal};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)]
// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), SeqCst) + layout.size();
        PEAK.fetch_max(live, SeqCst);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), SeqCst);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn the_trainer_takes_what_the_formula_says_and_a_step_keeps_nothing() {
    let lines =
        generate(&SynthParams { sequences: 200, positions: 40, vocab: 60, ..Default::default() }).expect("corpus");
    let mut p = AnalysisParams::default();
    p.encodings.smacof_max_iter = 0;
    let analysis = analyze(&Corpus::from_sequences(lines.clone()), &p, &[], &mut |_| true).expect("analysis");
    let tok = p.tokenizer();
    let seqs: Vec<Vec<String>> = lines.iter().map(|l| tok.tokens(l, p.max_len)).collect();
    for signal in [Signal::Nope, Signal::Learned, Signal::Rope, Signal::Alibi, Signal::LowRank] {
        let params = LearnParams { signals: vec![signal], batch: 16, d_model: 32, heads: 4, ..Default::default() };
        let ctx = Context::new(&seqs, &analysis, &params).expect("context");
        let shape = ctx.shape();
        let weights = init::tensors(shape, signal, 1, ctx.table(signal, 1).expect("table"));
        let batch = Batches::new(&ctx.data, 16, 0.15, 1).next().expect("batch");
        let before = LIVE.load(SeqCst);
        PEAK.store(before, SeqCst);
        let mut fused = Fused::new(shape, signal, &weights, 16).expect("trainer");
        let taken = PEAK.load(SeqCst) - before;
        let formula = memory_bytes(shape, 16, signal) as usize;
        // Beyond the buffers: the tensors' names and offsets, a few kilobytes.
        assert!(
            taken >= formula && taken <= formula + 16 * 1024,
            "{signal:?}: measured {taken} bytes, the formula says {formula}"
        );
        // A step keeps nothing: what it takes beyond the buffers is the packing scratch of
        // gemm's products (freed as each returns; the first also sets up gemm's per-thread
        // 1 MiB slab, once).
        fused.step(&batch, 1e-3).expect("a first step");
        let held = LIVE.load(SeqCst);
        PEAK.store(held, SeqCst);
        fused.step(&batch, 1e-3).expect("a step");
        assert_eq!(LIVE.load(SeqCst), held, "{signal:?}: a step keeps no memory");
        let scratch = PEAK.load(SeqCst) - held;
        assert!(scratch < 1 << 20, "{signal:?}: a step's scratch is {scratch} bytes");
        drop(fused);
    }
}
