//! The Learn panel's time estimate (docs/MATH.md §16, "Memory and time"): before Train, the
//! options' arithmetic ([`posgeo_learn::estimate`]) over a speed — the one the last training
//! in this tab measured, or else the project's measured speed in a tab — and, while a training
//! runs, the time left at the pace so far.

use super::{shares, Learning};
use crate::app::{Form, Model};
use posgeo_learn::estimate::{run_flops, seconds, TAB_FLOPS};
use posgeo_learn::LearnParams;

/// What a training was planned as, to measure its speed once it is done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// One run's arithmetic.
    pub flops: f64,
    /// Runs (signals × seeds).
    pub runs: usize,
    /// Workers.
    pub workers: usize,
    /// The page's cores.
    pub cores: usize,
}

impl Plan {
    /// The plan of `p` on the corpus of the results shown (their n and |V|; else `max_len`
    /// and the `vocab` option).
    pub fn new(m: &Model, p: &LearnParams, max_len: usize, cores: usize) -> Plan {
        let report = m.results.as_ref().map(|r| &r.report);
        let t = p.positions.min(report.map_or(max_len, |r| r.n)).max(1);
        let types = report.map_or(p.vocab, |r| r.vocab_size);
        Plan { flops: run_flops(p, t, types), runs: p.signals.len() * p.seeds, workers: shares(p, cores).len(), cores }
    }

    /// Seconds at `speed` FLOP/s a worker.
    pub fn seconds(&self, speed: f64) -> f64 {
        seconds(self.flops, self.runs, self.workers, self.cores, speed)
    }

    /// The speed (FLOP/s a worker) that took `secs` for the plan.
    pub fn speed(&self, secs: f64) -> f64 {
        self.seconds(1.0) / secs.max(1e-3)
    }
}

/// A duration in words ("about 40 s"): seconds up to two minutes, then minutes, then hours.
pub fn duration(secs: f64) -> String {
    match secs {
        s if s < 1.0 => "under a second".into(),
        s if s < 120.0 => format!("about {s:.0} s"),
        s if s < 7200.0 => format!("about {:.0} min", s / 60.0),
        s => format!("about {:.1} h", s / 3600.0),
    }
}

/// An amount of arithmetic in words: MFLOP below a GFLOP, TFLOP from a thousand GFLOP.
pub fn flops(f: f64) -> String {
    match f {
        f if f < 1e9 => format!("{:.0} MFLOP", f / 1e6),
        f if f < 1e12 => format!("{:.1} GFLOP", f / 1e9),
        f => format!("{:.2} TFLOP", f / 1e12),
    }
}

/// The estimate for the panel's options in `form` (`cores`: the page's), or why there is none.
pub fn text(m: &Model, form: &Form, cores: usize) -> String {
    let p = match form.learn_params() {
        Ok(p) => p,
        Err(e) => return format!("no estimate: {e}"),
    };
    let max_len = form.page_state().map_or(p.positions, |st| st.params.max_len);
    let plan = Plan::new(m, &p, max_len, cores);
    describe(&plan, m.learning.speed)
}

/// The estimate of `plan` at the speed measured by the last training here, or else at
/// [`TAB_FLOPS`].
pub fn describe(plan: &Plan, measured: Option<f64>) -> String {
    let (speed, whence) = match measured {
        Some(s) => (s, "as fast as your last training here"),
        None => (TAB_FLOPS, "posgeo's measured speed in a browser tab; yours may differ"),
    };
    let workers = match plan.workers {
        1 => "one worker".to_string(),
        k => format!("{k} workers"),
    };
    format!(
        "estimated time: {} — {} runs of {} each on {workers}, at {:.0} GFLOP/s a worker ({whence})",
        duration(plan.seconds(speed)),
        plan.runs,
        flops(plan.flops),
        speed / 1e9,
    )
}

impl Learning {
    /// The time left of the training under way, at its pace so far (`at`: now, ms).
    pub(super) fn left(&self, fraction: f64, at: f64) -> Option<String> {
        let elapsed = (at - self.started) / 1000.0;
        (fraction > 0.02 && fraction < 1.0 && elapsed > 0.0)
            .then(|| format!("{} left", duration(elapsed * (1.0 - fraction) / fraction)))
    }
}
