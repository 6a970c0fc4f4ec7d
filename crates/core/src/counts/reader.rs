//! One reader of a run of sequences: the token interner, each type's record lows and the
//! length histogram — what counting tells apart from the (position, type) cells. One thread's
//! tallies ([`super::tally`]) and each of the parallel counter's threads ([`super::parallel`])
//! read with it. A sequence is read in two loops: its tokens' types ([`Reader::type_of`]), then
//! its record lows ([`Reader::note_lows`]), so that the second loop's loads do not wait on the
//! interner's.

use super::interner::Interner;
use super::positions::Tokens;
use super::table::TextTally;
use crate::corpus::tokenize::Tokenizer;

/// What reading a run of sequences (numbered from 0) tells apart from the pair counts: the
/// types in order of first occurrence, their record lows and the lengths.
pub(super) struct Reader {
    pub(super) interner: Interner,
    /// Per type, its record lows (sequence, position): strictly decreasing positions.
    pub(super) firsts: Vec<Vec<(u64, u32)>>,
    /// The last position pushed to `firsts[id]` (flat, so the common case is one load).
    lowest: Vec<u32>,
    /// Per model-tokenizer id, its type's id (`u32::MAX` until seen): a model's tokens are
    /// looked up by id instead of interned by text ([`Tokenizer::for_each_keyed_token`]).
    by_key: Vec<u32>,
    pub(super) text: TextTally,
}

/// Model ids below this are looked up in [`Reader::by_key`] (16 MB at most; a vocabulary
/// file may name any id, and larger ones are interned by text).
const KEYED_IDS: usize = 1 << 22;

impl Reader {
    pub(super) fn new(max_len: usize) -> Self {
        Reader {
            interner: Interner::default(),
            firsts: Vec::new(),
            lowest: Vec::new(),
            by_key: Vec::new(),
            text: TextTally { lengths: vec![0; max_len + 1], ..TextTally::default() },
        }
    }

    /// The type id of the token `tok` (with its model id `key`, if any), added if new.
    #[inline]
    fn type_of(&mut self, tok: &str, key: Option<u32>) -> u32 {
        match key {
            Some(key) if (key as usize) < KEYED_IDS => self.keyed_type(tok, key as usize),
            _ => self.add_type(tok),
        }
    }

    /// Reads one sequence: its tokens' type ids appended to `tokens` (its end too), then its
    /// record lows noted and its length recorded.
    #[inline]
    pub(super) fn read_sequence(&mut self, tokenizer: &Tokenizer, seq: &str, limit: usize, tokens: &mut Tokens) {
        let ids = &mut tokens.ids;
        let start = ids.len();
        tokenizer.for_each_keyed_token(seq, limit, |tok, key| ids.push(self.type_of(tok, key)));
        self.note_lows(&ids[start..]);
        self.text.record_length(ids.len() - start);
        tokens.ends.push(ids.len());
    }

    /// Notes the record lows of the sequence being read, whose token ids are `ids` (position
    /// p holds `ids[p]`). Done once the sequence is read rather than token by token, so the
    /// loads of `lowest` do not wait on the interner's lookups and overlap each other.
    #[inline]
    fn note_lows(&mut self, ids: &[u32]) {
        for (pos, &id) in ids.iter().enumerate() {
            let i = id as usize;
            if (pos as u32) < self.lowest[i] {
                self.lowest[i] = pos as u32;
                self.firsts[i].push((self.text.sequences, pos as u32));
            }
        }
    }

    /// The id of the type `tok`, added (with no record lows yet) if it is new.
    #[inline]
    pub(super) fn add_type(&mut self, tok: &str) -> u32 {
        let (id, new) = self.interner.intern(tok);
        if new {
            self.firsts.push(Vec::new());
            self.lowest.push(u32::MAX);
        }
        id
    }

    /// The id of the type of `tok`, whose model id is `key`: looked up by `key` once seen.
    #[inline]
    fn keyed_type(&mut self, tok: &str, key: usize) -> u32 {
        match self.by_key.get(key) {
            Some(&id) if id != u32::MAX => id,
            _ => {
                let id = self.add_type(tok);
                if key >= self.by_key.len() {
                    self.by_key.resize(key + 1, u32::MAX);
                }
                self.by_key[key] = id;
                id
            }
        }
    }

    /// Approximate bytes held: the record lows (as [`super::table::CountsTable::memory_bytes`] counts
    /// them, and the lowest positions) and the interner.
    pub(super) fn memory_bytes(&self) -> u64 {
        super::table::memory_of(0, &self.firsts, &[])
            + (self.lowest.len() + self.by_key.len()) as u64 * 4
            + self.interner.memory_bytes()
    }
}
