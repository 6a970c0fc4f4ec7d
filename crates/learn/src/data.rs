//! The **data of the learning experiment** (docs/MATH.md §16): the corpus's sequences as
//! token ids over a vocabulary of the `vocab` most frequent types plus `<pad>`, `<unk>` and
//! `<mask>`; a seeded held-out split of ⌊m·share⌋ sequences (a tenth by default); batches of B training sequences
//! from seeded permutations; masked-token targets (each real position chosen with
//! probability `mask_rate`, at least one per sequence, replaced by `<mask>`).

use posgeo::error::{PosgeoError, Result};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

/// The id of `<pad>`.
pub const PAD: u32 = 0;
/// The id of `<unk>`.
pub const UNK: u32 = 1;
/// The id of `<mask>`.
pub const MASK: u32 = 2;
/// The special tokens, in id order.
pub const SPECIALS: [&str; 3] = ["<pad>", "<unk>", "<mask>"];

/// The seed of the held-out split and of the held-out masks: fixed, the same for every
/// signal and every run seed, so that held-out losses compare.
const SPLIT_SEED: u64 = 0x5EED_0010;

/// The experiment's vocabulary, in id order (the specials first).
#[derive(Debug, Clone, PartialEq)]
pub struct Vocab {
    tokens: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Vocab {
    /// The `k` most frequent types over the first `n` positions of `seqs` (ties by first
    /// occurrence in reading order), after the specials.
    pub fn top<S: AsRef<str>>(seqs: &[Vec<S>], n: usize, k: usize) -> Vocab {
        let mut seen: FxHashMap<&str, (u64, usize)> = FxHashMap::default();
        for s in seqs {
            for t in s.iter().take(n) {
                let next = seen.len();
                seen.entry(t.as_ref()).or_insert((0, next)).0 += 1;
            }
        }
        let mut types: Vec<(&str, u64, usize)> = seen.into_iter().map(|(t, (c, first))| (t, c, first)).collect();
        types.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
        let tokens: Vec<String> =
            SPECIALS.iter().map(|s| s.to_string()).chain(types.into_iter().take(k).map(|t| t.0.to_string())).collect();
        let index = tokens.iter().enumerate().skip(SPECIALS.len()).map(|(i, t)| (t.clone(), i as u32)).collect();
        Vocab { tokens, index }
    }

    /// |V|, specials included.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Always false: the specials are there.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The tokens in id order.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// A token's id (`<unk>` outside the vocabulary).
    pub fn id(&self, token: &str) -> u32 {
        self.index.get(token).copied().unwrap_or(UNK)
    }
}

/// The sequences as ids, split.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// The vocabulary.
    pub vocab: Vocab,
    /// Positions (n): every sequence is cut there.
    pub n: usize,
    /// The training sequences.
    pub train: Vec<Vec<u32>>,
    /// The held-out sequences.
    pub held: Vec<Vec<u32>>,
}

impl Dataset {
    /// Ids of `seqs` cut at `n`, over the top-`k` vocabulary, with ⌊m·`share`⌋ held out.
    pub fn new<S: AsRef<str>>(seqs: &[Vec<S>], n: usize, k: usize, share: f64) -> Result<Dataset> {
        let vocab = Vocab::top(seqs, n, k);
        let mut all: Vec<Vec<u32>> = seqs
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| s.iter().take(n).map(|t| vocab.id(t.as_ref())).collect())
            .collect();
        let m = all.len();
        // (The 10⁻⁹ keeps ⌊m·0.1⌋ = ⌊m/10⌋ where m·0.1 rounds below a whole number.)
        let held_count = (m as f64 * share + 1e-9).floor() as usize;
        if held_count == 0 || held_count >= m {
            let least = (1.0 / share).ceil();
            return Err(PosgeoError::Learn(format!(
                "the corpus has {m} sequence(s): holding out {:.0} % for the held-out loss needs at least {least} and leaves none to train on below that",
                100.0 * share
            )));
        }
        let mut order: Vec<usize> = (0..m).collect();
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(SPLIT_SEED));
        let mut is_held = vec![false; m];
        for &i in &order[..held_count] {
            is_held[i] = true;
        }
        let (mut train, mut held) = (Vec::with_capacity(m - held_count), Vec::with_capacity(held_count));
        for (i, s) in all.drain(..).enumerate() {
            if is_held[i] {
                held.push(s);
            } else {
                train.push(s);
            }
        }
        Ok(Dataset { vocab, n, train, held })
    }

    /// The held-out set in batches of `size`, masked once with the fixed held-out seed.
    pub fn held_batches(&self, size: usize, rate: f64) -> Vec<Batch> {
        let mut rng = ChaCha8Rng::seed_from_u64(SPLIT_SEED);
        rng.set_stream(1);
        self.held.chunks(size.max(1)).map(|c| Batch::masked(&c.iter().collect::<Vec<_>>(), rate, &mut rng)).collect()
    }
}

/// One masked batch, padded to its longest sequence: B×T row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// The model's input (chosen tokens replaced by `<mask>`, pads `<pad>`).
    pub input: Vec<u32>,
    /// The original token at chosen positions, `<pad>` elsewhere.
    pub target: Vec<u32>,
    /// 1 where the position is chosen.
    pub chosen: Vec<u8>,
    /// B.
    pub size: usize,
    /// T.
    pub len: usize,
}

impl Batch {
    /// Masks `seqs` (each position chosen with probability `rate`, at least one).
    pub fn masked(seqs: &[&Vec<u32>], rate: f64, rng: &mut ChaCha8Rng) -> Batch {
        let len = seqs.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
        let size = seqs.len();
        let mut b = Batch {
            input: vec![PAD; size * len],
            target: vec![PAD; size * len],
            chosen: vec![0; size * len],
            size,
            len,
        };
        for (r, s) in seqs.iter().enumerate() {
            let row = r * len;
            let mut any = false;
            for (i, &t) in s.iter().enumerate() {
                let pick = rng.random::<f64>() < rate;
                any |= pick;
                b.choose(row + i, t, pick);
            }
            if !any && !s.is_empty() {
                let i = rng.random_range(0..s.len());
                b.choose(row + i, s[i], true);
            }
        }
        b
    }

    fn choose(&mut self, at: usize, token: u32, pick: bool) {
        if pick {
            self.input[at] = MASK;
            self.target[at] = token;
            self.chosen[at] = 1;
        } else {
            self.input[at] = token;
        }
    }

    /// The number of chosen positions.
    pub fn chosen_count(&self) -> usize {
        self.chosen.iter().filter(|&&c| c == 1).count()
    }

    /// The same batch padded to `n` positions (the dump's layout).
    pub fn padded_to(&self, n: usize) -> Batch {
        let mut out = Batch {
            input: vec![PAD; self.size * n],
            target: vec![PAD; self.size * n],
            chosen: vec![0; self.size * n],
            size: self.size,
            len: n,
        };
        let t = self.len.min(n);
        for r in 0..self.size {
            let (src, dst) = (r * self.len, r * n);
            out.input[dst..dst + t].copy_from_slice(&self.input[src..src + t]);
            out.target[dst..dst + t].copy_from_slice(&self.target[src..src + t]);
            out.chosen[dst..dst + t].copy_from_slice(&self.chosen[src..src + t]);
        }
        out
    }
}

/// Training batches: B sequences a step from seeded permutations of the training set, then
/// masked.
pub struct Batches<'a> {
    train: &'a [Vec<u32>],
    order: Vec<usize>,
    next: usize,
    size: usize,
    rate: f64,
    rng: ChaCha8Rng,
}

impl<'a> Batches<'a> {
    /// The stream of a run seed.
    pub fn new(data: &'a Dataset, size: usize, rate: f64, seed: u64) -> Batches<'a> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(1);
        Batches { train: &data.train, order: Vec::new(), next: 0, size, rate, rng }
    }
}

impl Iterator for Batches<'_> {
    type Item = Batch;
    fn next(&mut self) -> Option<Batch> {
        let mut picked: Vec<&Vec<u32>> = Vec::with_capacity(self.size);
        while picked.len() < self.size {
            if self.next == self.order.len() {
                self.order = (0..self.train.len()).collect();
                self.order.shuffle(&mut self.rng);
                self.next = 0;
            }
            picked.push(&self.train[self.order[self.next]]);
            self.next += 1;
        }
        Some(Batch::masked(&picked, self.rate, &mut self.rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(m: usize) -> Vec<Vec<String>> {
        (0..m).map(|i| (0..(3 + i % 4)).map(|j| format!("t{}", (i + j) % 7)).collect()).collect()
    }

    #[test]
    fn the_vocabulary_ranks_by_frequency_then_first_occurrence() {
        let seqs = vec![vec!["b", "a", "c"], vec!["a", "b", "d"], vec!["c"]];
        let v = Vocab::top(&seqs, 3, 3);
        assert_eq!(v.tokens(), ["<pad>", "<unk>", "<mask>", "b", "a", "c"]);
        assert_eq!(v.id("d"), UNK);
        // Only positions < n count: with n = 1, "b", "a" and "c" occur once each.
        assert_eq!(Vocab::top(&seqs, 1, 2).tokens()[3..], ["b", "a"]);
    }

    #[test]
    fn a_tenth_is_held_out_and_every_sequence_lands_once() {
        let d = Dataset::new(&corpus(47), 5, 100, 0.1).unwrap();
        assert_eq!(d.held.len(), 4);
        assert_eq!(d.train.len(), 43);
        assert!(d.train.iter().chain(&d.held).all(|s| !s.is_empty() && s.len() <= 5));
        assert!(Dataset::new(&corpus(9), 5, 100, 0.1).is_err());
    }

    #[test]
    fn every_sequence_gets_a_chosen_position_and_pads_are_never_chosen() {
        let d = Dataset::new(&corpus(60), 6, 100, 0.1).unwrap();
        for b in Batches::new(&d, 8, 0.0, 3).take(5) {
            for r in 0..b.size {
                let row = &b.chosen[r * b.len..(r + 1) * b.len];
                assert_eq!(row.iter().filter(|&&c| c == 1).count(), 1);
            }
            for i in 0..b.input.len() {
                assert!(b.chosen[i] == 0 || (b.input[i] == MASK && b.target[i] != PAD));
            }
        }
        let all = Batches::new(&d, 8, 1.0, 3).next().unwrap();
        assert!(all.input.iter().all(|&t| t == MASK || t == PAD));
    }
}
