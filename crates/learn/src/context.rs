//! **What every run of the experiment shares** (docs/MATH.md §16): the sequences as ids cut
//! at the training positions n_t, the held-out batches, D restricted to n_t with its own
//! spectrum (the PMDS tables, the map the learned tables are aligned onto, r_E), the fixed
//! tables scaled to RMS 1, and `lowrank`'s r; checked against the memory budget first.

use super::data::{Batch, Dataset};
use super::{fused, net, LearnParams, Signal};
use posgeo::analysis::Analysis;
use posgeo::error::{PosgeoError, Result};
use posgeo::measures::stress::Target;
use posgeo::points::Points;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// Everything every run shares: the data, D, the PMDS map and the fixed tables.
pub struct Context {
    /// The checked options.
    pub params: LearnParams,
    /// The sequences as ids.
    pub data: Dataset,
    /// The held-out batches (masked once).
    pub held: Vec<Batch>,
    /// D, prepared for stress.
    pub target: Target,
    /// The PMDS map's two coordinates (the Procrustes target of the tables' maps).
    pub map_target: Points,
    /// X_d of PMDS, d = d_model (zero-padded past r_τ), scaled to RMS 1.
    pmds: Vec<f32>,
    /// X_r, scaled to RMS 1.
    pmds_r: Vec<f32>,
    /// The sinusoidal table, scaled to RMS 1.
    sinusoidal: Vec<f32>,
    /// r of `lowrank`'s table.
    pub lowrank_rank: usize,
}

/// `p / rms(p)` over every entry, as f32.
fn scaled(p: &Points, d: usize) -> Result<Vec<f32>> {
    let mut out = vec![0.0f64; p.n * d];
    for i in 0..p.n {
        for (k, v) in p.row(i).iter().take(d).enumerate() {
            out[i * d + k] = *v;
        }
    }
    let rms = (out.iter().map(|v| v * v).sum::<f64>() / out.len().max(1) as f64).sqrt();
    if !(rms > 0.0 && rms.is_finite()) {
        return Err(PosgeoError::Learn("a position table is all zeros: it cannot be scaled to RMS 1".into()));
    }
    Ok(out.into_iter().map(|v| (v / rms) as f32).collect())
}

impl Context {
    /// Checks `params` against the corpus (its token sequences `seqs` and its analysis) and
    /// prepares the data and the tables.
    pub fn new<S: AsRef<str>>(seqs: &[Vec<S>], analysis: &Analysis, params: &LearnParams) -> Result<Context> {
        params.validate()?;
        let n = analysis.counts.n.min(params.positions);
        if n < 2 {
            return Err(PosgeoError::Learn(format!("the corpus has {n} position(s); training needs at least 2")));
        }
        let data = Dataset::new(seqs, n, params.vocab, params.held)?;
        let d = params.d_model;
        let shape = net::Shape { vocab: data.vocab.len(), n, d, layers: params.layers, heads: params.heads, rank: 1 };
        for &signal in &params.signals {
            fused::layout::check_memory(net::Shape { rank: n.min(d), ..shape }, params.batch, signal)?;
        }
        // The geometry of the first n_t positions: D restricted, and its own spectrum and ranks.
        let restricted = (n < analysis.counts.n).then(|| {
            let sub = posgeo::metric::DistanceMatrix::from_fn(n, |i, j| analysis.distances.get(i, j));
            posgeo::mds::Spectrum::of_distances(&sub).map(|s| (sub, s))
        });
        let restricted = restricted.transpose()?;
        let (distances, spectrum, effective_rank, energy_rank) = match &restricted {
            Some((sub, s)) => {
                let p = &analysis.params;
                (sub, s, s.effective_rank(p.tau), s.energy_rank(p.energy))
            }
            None => (&analysis.distances, &analysis.spectrum, analysis.effective_rank, analysis.energy_rank),
        };
        let kept = spectrum.kept();
        let full = d.min(effective_rank).min(kept).max(1);
        let rank = analysis.params.encodings.rank.unwrap_or(energy_rank).min(full).max(1);
        let x = spectrum.coordinates(full);
        let xr = spectrum.coordinates(rank);
        let sin = posgeo::encodings::sinusoidal(n, d, 10000.0);
        let map = spectrum.coordinates(2.min(kept).max(1));
        let most = n.min(d);
        let lowrank_rank = match params.rank {
            Some(r) if r > most => {
                return Err(PosgeoError::option(
                    "learn_rank",
                    format!("must be at most min(n, d) = min({n}, {d}) = {most}: a rank-{r} table of {n} positions in {d} dimensions does not exist"),
                ))
            }
            Some(r) => r,
            None => energy_rank.clamp(1, most),
        };
        Ok(Context {
            lowrank_rank,
            held: data.held_batches(params.batch, params.mask_rate),
            target: Target::new(distances)?,
            map_target: map,
            pmds: scaled(&x, d)?,
            pmds_r: scaled(&xr, d)?,
            sinusoidal: scaled(&sin, d)?,
            params: params.clone(),
            data,
        })
    }

    /// The model's sizes.
    pub fn shape(&self) -> net::Shape {
        let p = &self.params;
        let (vocab, n, rank) = (self.data.vocab.len(), self.data.n, self.lowrank_rank);
        net::Shape { vocab, n, d: p.d_model, layers: p.layers, heads: p.heads, rank }
    }

    /// The starting position table of `signal` for `seed` (`None`: no table, or `learned`'s
    /// own draw).
    pub fn table(&self, signal: Signal, seed: u64) -> Result<Option<Vec<f32>>> {
        Ok(match signal {
            Signal::Sinusoidal => Some(self.sinusoidal.clone()),
            Signal::Pmds | Signal::LearnedPmds => Some(self.pmds.clone()),
            Signal::PmdsR => Some(self.pmds_r.clone()),
            Signal::Random => {
                let (n, d) = (self.data.n, self.params.d_model);
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                rng.set_stream(3);
                let p = Points::from_fn(n, d, |_, _| 0.0);
                let data: Vec<f64> = (0..n * d).map(|_| -> f64 { StandardNormal.sample(&mut rng) }).collect();
                Some(scaled(&Points { data, ..p }, d)?)
            }
            Signal::Nope | Signal::Learned | Signal::Rope | Signal::Alibi | Signal::LowRank => None,
        })
    }

    /// σ* of a signal's fixed geometry for `seed` (§16's finding): the fixed table's, §5's
    /// RoPE with the model's head width, §5's ALiBi, 1 for `nope`; `None` for trainable
    /// tables (their σ* is the final table's).
    pub fn fixed_stress(&self, signal: Signal, seed: u64) -> Result<Option<f64>> {
        let n = self.data.n;
        let points = match signal {
            Signal::Nope => return Ok(Some(1.0)),
            Signal::Learned | Signal::LearnedPmds | Signal::LowRank => return Ok(None),
            Signal::Rope => posgeo::encodings::rope(n, self.params.d_model / self.params.heads, 10000.0),
            Signal::Alibi => posgeo::encodings::alibi(n, 1.0),
            Signal::Sinusoidal | Signal::Random | Signal::Pmds | Signal::PmdsR => {
                let t = self.table(signal, seed)?.unwrap_or_default();
                let d = self.params.d_model;
                Points::from_fn(n, d, |i, k| t[i * d + k] as f64)
            }
        };
        Ok(Some(posgeo::measures::stress::stress_against(&points.distances(), &self.target).scaled_stress))
    }
}
