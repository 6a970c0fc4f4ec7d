//! Token interning for counting (docs/MATH.md §2): each distinct token gets the next id, 0, 1, 2, …
//! in order of first occurrence, exactly as a map from strings to ids would give them, in a
//! table laid out for the one lookup counting does per token.
//!
//! Open addressing with linear probing, at most half full, over 16-byte slots. A slot holds
//! the token's length and first 8 bytes, so a token of at most 8 bytes (most words of natural
//! text) is found or ruled out by the slot alone: one memory access per lookup, in a table a
//! quarter the size of a map of inline strings. A longer token is confirmed against its bytes
//! in the arena, where every token's bytes lie one after another.

use std::hash::Hasher;

/// One slot: `id` is the token's id + 1 (0: empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The token's first 8 bytes, zero padded, little-endian.
    head: u64,
    /// The token's length in bytes (saturated; longer tokens are compared in full anyway).
    len: u32,
    id: u32,
}

/// Strings to ids, in order of first occurrence.
#[derive(Default)]
pub(super) struct Interner {
    slots: Vec<Slot>,
    arena: String,
    /// `ends[id]`: one past the last byte of token `id` in `arena`.
    ends: Vec<usize>,
}

/// The first 8 bytes, zero padded, little-endian: read in at most three loads (the ranges
/// overlap; an overlapping byte is or-ed with itself), without a copy.
#[inline]
fn head(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let le4 = |at: usize| bytes.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64);
    match n {
        0 => 0,
        1..=3 => {
            let byte = |k: usize| u64::from(bytes[k]) << (8 * k);
            byte(0) | byte(n / 2) | byte(n - 1)
        }
        4..=7 => le4(0) | le4(n - 4) << (8 * (n - 4)),
        _ => le4(0) | le4(4) << 32,
    }
}

/// The slot hash: for a token of at most 8 bytes its head and length (which identify it),
/// multiplied; for a longer one FxHash of its bytes. Spread into the high bits, which pick
/// the slot.
#[inline]
fn hash(bytes: &[u8], head: u64) -> u64 {
    let key = if bytes.len() <= 8 {
        head ^ (bytes.len() as u64).rotate_right(8)
    } else {
        let mut h = rustc_hash::FxHasher::default();
        h.write(bytes);
        h.finish()
    };
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl Interner {
    /// The number of distinct tokens.
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Token `id`.
    #[inline]
    pub(super) fn get(&self, id: usize) -> &str {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.arena[start..self.ends[id]]
    }

    #[inline]
    fn bytes(&self, id: usize) -> &[u8] {
        self.get(id).as_bytes()
    }

    /// The slot index where probing for `h` starts.
    fn start(&self, h: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (h >> (64 - bits)) as usize
    }

    /// The id of `tok`, and whether it is new (then it got the next id).
    #[inline]
    pub(super) fn intern(&mut self, tok: &str) -> (u32, bool) {
        if (self.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let bytes = tok.as_bytes();
        let (h, len) = (head(bytes), bytes.len().min(u32::MAX as usize) as u32);
        let mask = self.slots.len() - 1;
        let mut i = self.start(hash(bytes, h));
        loop {
            let s = self.slots[i];
            if s.id == 0 {
                let id = self.len() as u32;
                self.slots[i] = Slot { head: h, len, id: id + 1 };
                self.arena.push_str(tok);
                self.ends.push(self.arena.len());
                return (id, true);
            }
            if s.head == h && s.len == len && (bytes.len() <= 8 || self.bytes(s.id as usize - 1) == bytes) {
                return (s.id - 1, false);
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the slots (at least 64) and places every token again.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        let mask = size - 1;
        for s in old.into_iter().filter(|s| s.id != 0) {
            let mut i = self.start(hash(self.bytes(s.id as usize - 1), s.head));
            while self.slots[i].id != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    /// Bytes held: the slots, the arena and its ends.
    pub(super) fn memory_bytes(&self) -> u64 {
        (self.slots.len() * 16 + self.arena.len() + self.ends.len() * 8) as u64
    }

    /// The tokens, by id.
    pub(super) fn into_types(self) -> Vec<String> {
        (0..self.len()).map(|id| String::from_utf8_lossy(self.bytes(id)).into_owned()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::{head, Interner};
    use std::collections::HashMap;

    #[test]
    fn head_is_the_first_eight_bytes_zero_padded() {
        let text = b"abcdefghijkl\x00\xff\x80z";
        for start in 0..4 {
            for len in 0..=text.len() - start {
                let bytes = &text[start..start + len];
                let mut want = [0u8; 8];
                want[..len.min(8)].copy_from_slice(&bytes[..len.min(8)]);
                assert_eq!(head(bytes), u64::from_le_bytes(want), "{bytes:?}");
            }
        }
    }

    #[test]
    fn ids_are_first_occurrence_order_as_a_map_gives_them() {
        // Short, 8-byte, long, empty and non-ASCII tokens; prefixes of each other; enough of
        // them to grow the table several times.
        let mut tokens: Vec<String> = Vec::new();
        for k in 0..5000u32 {
            let t = match k % 6 {
                0 => format!("{}", k % 700),
                1 => "abcdefgh".to_string() + &"x".repeat((k % 5) as usize),
                2 => format!("ä{}", k % 300),
                3 => String::new(),
                4 => format!("a long token of some words {}", k % 900),
                _ => "abcdefg".chars().take((k % 8) as usize).collect(),
            };
            tokens.push(t);
        }
        let mut interner = Interner::default();
        let mut map: HashMap<String, u32> = HashMap::new();
        for t in &tokens {
            let next = map.len() as u32;
            let want = *map.entry(t.clone()).or_insert(next);
            assert_eq!(interner.intern(t), (want, want == next), "{t:?}");
        }
        let mut by_id: Vec<(u32, String)> = map.into_iter().map(|(t, id)| (id, t)).collect();
        by_id.sort();
        assert_eq!(interner.into_types(), by_id.into_iter().map(|(_, t)| t).collect::<Vec<_>>());
    }
}
