//! The `whitespace` tokenizer's split (docs/MATH.md §1): the tokens of `str::split_whitespace`, the
//! runs of characters between Unicode `White_Space` characters, found 64 bytes at a time.
//!
//! Each 64-byte block of a sequence gets a mask, bit j set when byte j belongs to a
//! whitespace character. An ASCII block's mask is computed eight bytes at a time in a `u64`
//! (whitespace there is `\t`, `\n`, `\v`, `\f`, `\r` and the space); in a block holding a
//! byte ≥ 0x80 the multi-byte characters are decoded at their lead bytes, and the bytes of a
//! multi-byte whitespace character that runs past the block are carried into the next one. A token starts at a
//! clear bit after a set one (or at the start) and ends at the next set bit: both are read
//! off the mask with `trailing_zeros`, without a branch per byte.

/// `0x01` in every byte.
pub(super) const LO: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte.
pub(super) const HI: u64 = 0x8080_8080_8080_8080;

/// Gathers the top bit of each byte of `w` (other bits clear), byte j's into bit j.
#[inline]
pub(super) fn gather(w: u64) -> u64 {
    (w >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Of the eight bytes of `x`: (bit j set when byte j is ASCII whitespace, bit j set when
/// byte j is an ASCII capital or ≥ 0x80).
#[inline]
fn ascii_classes(x: u64) -> (u64, u64) {
    let low = x & !HI;
    // A byte b < 0x80 plus 0x80 − k has its top bit set when b ≥ k, and never carries.
    let at_least = |k: u64| low.wrapping_add(LO * (0x80 - k)) & HI;
    let ws = (at_least(9) & !at_least(14)) | (at_least(32) & !at_least(33));
    let capital = at_least(b'A'.into()) & !at_least(u64::from(b'Z') + 1);
    (gather(ws & !x), gather(capital | (x & HI)))
}

/// A block's masks: bit j of `ws` set when byte j belongs to a whitespace character, of
/// `cased` when byte j is an ASCII capital or ≥ 0x80 (a token without one is its own
/// lowercase); `carry`: the bits a whitespace character carries into the next block.
struct Masks {
    ws: u64,
    cased: u64,
    carry: u64,
}

/// The masks of the block of `s` from byte `base` (copied into `block`, padded with spaces
/// past the end), given the bits carried from the block before.
#[inline]
fn block_mask(s: &str, base: usize, block: &[u8; 64], carry: u64) -> Masks {
    let (mut ws, mut cased, mut high) = (0u64, 0u64, 0u64);
    for (j, eight) in block.chunks_exact(8).enumerate() {
        let mut le = [0u8; 8];
        le.copy_from_slice(eight);
        let x = u64::from_le_bytes(le);
        let (w, c) = ascii_classes(x);
        ws |= w << (8 * j);
        cased |= c << (8 * j);
        high |= x & HI;
    }
    // A block with a byte ≥ 0x80 is decoded.
    if high == 0 {
        return Masks { ws: ws | carry, cased, carry: 0 };
    }
    let (ws, carry) = multi_byte_whitespace(s, base, block, ws | carry);
    Masks { ws, cased, carry }
}

/// [`block_mask`] for a block holding a byte ≥ 0x80: `ws` (its ASCII whitespace and the bits
/// carried in) gains the bytes of its multi-byte whitespace characters, decoded at their
/// lead bytes; returns it and the bits carried past the block.
#[cold]
fn multi_byte_whitespace(s: &str, base: usize, block: &[u8; 64], mut ws: u64) -> (u64, u64) {
    let mut next = 0u64;
    for (j, &b) in block.iter().enumerate() {
        if b >= 0xC0 {
            // A lead byte: the character starts here (continuation bytes are skipped).
            let Some(c) = s.get(base + j..).and_then(|rest| rest.chars().next()) else { continue };
            if c.is_whitespace() {
                for k in j..j + c.len_utf8() {
                    if k < 64 {
                        ws |= 1 << k;
                    } else {
                        next |= 1 << (k - 64);
                    }
                }
            }
        }
    }
    (ws, next)
}

/// A block's masks for [`for_each_run`]: tokens are the runs of clear `sep` bits; a run is
/// passed on when it holds a `keep` bit, with whether it holds a `cased` bit.
pub(super) struct Runs {
    pub(super) sep: u64,
    pub(super) keep: u64,
    pub(super) cased: u64,
}

/// Calls `f` with each of the first `limit` tokens of `s` (those of `s.split_whitespace()`)
/// and whether it holds an ASCII capital or a non-ASCII character (else lowercasing leaves
/// it as it is).
#[inline]
pub fn for_each_whitespace_token<'s>(s: &'s str, limit: usize, f: impl FnMut(&'s str, bool)) {
    let mut carry = 0u64;
    let masks = |base: usize, block: &[u8; 64]| {
        let m = block_mask(s, base, block, carry);
        carry = m.carry;
        Runs { sep: m.ws, keep: !m.ws, cased: m.cased }
    };
    for_each_run(s, limit, masks, f);
}

/// The walk shared by the splits: each 64-byte block of `s` (copied, padded with spaces
/// past the end) gets its [`Runs`] from `masks(base, block)`, and the token boundaries are
/// read off them with `trailing_zeros`, without a branch per byte. The padding must be a
/// separator.
#[inline]
pub(super) fn for_each_run<'s>(
    s: &'s str,
    mut limit: usize,
    mut masks: impl FnMut(usize, &[u8; 64]) -> Runs,
    mut f: impl FnMut(&'s str, bool),
) {
    let bytes = s.as_bytes();
    let mut base = 0;
    // The open token: its first byte, its first bit in the current block, and whether a
    // cased or a kept byte was seen in it.
    let (mut start, mut from_bit, mut cased, mut kept) = (None::<usize>, 0, false, false);
    // Whether the byte before the block separates (the start of `s` counts as such).
    let mut after_sep = true;
    while base < bytes.len() && limit > 0 {
        let mut block = [b' '; 64];
        let take = (bytes.len() - base).min(64);
        block[..take].copy_from_slice(&bytes[base..base + take]);
        let m = masks(base, &block);
        let before = (m.sep << 1) | u64::from(after_sep);
        let (mut starts, mut ends) = (!m.sep & before, m.sep & !before);
        after_sep = m.sep >> 63 != 0;
        loop {
            if start.is_none() {
                if starts == 0 {
                    break;
                }
                from_bit = starts.trailing_zeros();
                (start, cased, kept) = (Some(base + from_bit as usize), false, false);
                starts &= starts - 1;
            }
            if ends == 0 {
                // The token goes on into the next block.
                cased |= m.cased >> from_bit != 0;
                kept |= m.keep >> from_bit != 0;
                from_bit = 0;
                break;
            }
            let end_bit = ends.trailing_zeros();
            ends &= ends - 1;
            let inside = (1u64 << (end_bit - from_bit)) - 1;
            cased |= (m.cased >> from_bit) & inside != 0;
            kept |= (m.keep >> from_bit) & inside != 0;
            if let (Some(from), true) = (start.take(), kept) {
                f(&s[from..base + end_bit as usize], cased);
                limit -= 1;
                if limit == 0 {
                    return;
                }
            }
        }
        base += 64;
    }
    // A token that runs to the end of a text of whole blocks.
    if let (Some(from), true) = (start, limit > 0 && kept) {
        f(&s[from..], cased);
    }
}

/// What the splits' tests share.
#[cfg(test)]
pub(super) mod check {
    /// A xorshift generator: `next(m)` is in `0..m`.
    pub(in crate::corpus) fn random(mut state: u64) -> impl FnMut(usize) -> usize {
        move |m| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as usize
        }
    }

    /// `split(text, limit)` gives `want`, and its first `limit` tokens for a random limit.
    pub(in crate::corpus) fn same_tokens<'a>(
        text: &'a str,
        want: Vec<&'a str>,
        split: impl Fn(&'a str, usize) -> Vec<&'a str>,
        next: &mut impl FnMut(usize) -> usize,
    ) {
        assert_eq!(split(text, usize::MAX), want, "{text:?}");
        let limit = next(want.len() + 2);
        assert_eq!(split(text, limit), want[..limit.min(want.len())], "{text:?} limit {limit}");
    }
}

#[cfg(test)]
mod tests {
    use super::{ascii_classes, check, for_each_whitespace_token};

    /// The tokens, each checked for its `cased` flag.
    fn tokens(s: &str, limit: usize) -> Vec<&str> {
        let mut out = Vec::new();
        for_each_whitespace_token(s, limit, |t, cased| {
            assert_eq!(cased, t.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()), "{t:?}");
            out.push(t)
        });
        out
    }

    #[test]
    fn byte_classes_are_char_is_whitespace_and_capitals_for_every_byte() {
        for b in 0u8..=0xFF {
            for j in 0..8 {
                let x = u64::from(b) << (8 * j) | 0x6161_6161_6161_6161 & !(0xFF << (8 * j));
                let ws = b < 0x80 && (b as char).is_whitespace();
                let cased = b.is_ascii_uppercase() || b >= 0x80;
                assert_eq!(ascii_classes(x), (u64::from(ws) << j, u64::from(cased) << j), "byte {b:#x} at {j}");
            }
        }
    }

    #[test]
    fn tokens_are_split_whitespaces_on_random_unicode_text() {
        // Every Unicode whitespace character, ASCII and multi-byte letters, long runs, tokens
        // and whitespace across 64-byte blocks; every limit up to past the end.
        let pieces = [
            " ", "  ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{85}", "\u{a0}", "\u{1680}", "\u{2000}", "\u{200a}",
            "\u{2028}", "\u{2029}", "\u{202f}", "\u{205f}", "\u{3000}", "\u{200b}", "a", "bc", "def", "x1y2z3w4", "é",
            "ü", "日本", "😀", "\u{1f}", "\u{7f}", "\u{80}", "\u{c2}", "A", "Zq", "@[`{", "É",
        ];
        let mut next = check::random(0x9E37_79B9_7F4A_7C15);
        for round in 0..3000 {
            let len = next(120);
            let mut text: String = (0..len).map(|_| pieces[next(pieces.len())]).collect();
            if round % 3 == 0 {
                // Whole blocks: the last token runs to the end of the last one.
                text.extend(std::iter::repeat_n('x', (64 - text.len() % 64) % 64));
            }
            check::same_tokens(&text, text.split_whitespace().collect(), tokens, &mut next);
        }
    }

    #[test]
    fn known_cases() {
        assert_eq!(tokens("", 9), Vec::<&str>::new());
        assert_eq!(tokens("   \t\n", 9), Vec::<&str>::new());
        assert_eq!(tokens("a", 0), Vec::<&str>::new());
        let long = "x".repeat(200);
        assert_eq!(tokens(&format!("  {long}\u{3000}y "), 9), [long.as_str(), "y"]);
        assert_eq!(tokens(&"w".repeat(128), 9), ["w".repeat(128).as_str()], "a token to the end of whole blocks");
        let edge = format!("{}\u{3000}z", "q".repeat(63));
        assert_eq!(tokens(&edge, 9), ["q".repeat(63).as_str(), "z"], "a whitespace character across blocks");
    }
}
