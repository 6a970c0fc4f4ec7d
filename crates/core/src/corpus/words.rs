//! The `words` tokenizer on ASCII text (docs/MATH.md §1): the tokens `unicode_words` (UAX #29 word
//! boundaries) gives an ASCII string, found 64 bytes at a time by [`super::split`]'s walk.
//!
//! On ASCII text UAX #29 reduces to (the `unicode-segmentation` crate's own ASCII path):
//!
//! * a word is a maximal run of *core* bytes — letters, digits, `_` (ALetter, Numeric,
//!   ExtendNumLet; WB5, WB8–WB10, WB13a/b) — and of *infix* bytes between them:
//!   `.` `'` `:` between two letters (WB6/WB7), `.` `,` `;` `'` between two digits
//!   (WB11/WB12);
//! * every other byte is a segment of its own or of a run of spaces (WB3, WB3d, WB999);
//! * `unicode_words` keeps the segments holding a letter or a digit.
//!
//! Each block's masks are computed eight bytes at a time in a `u64`; a letter's or digit's
//! bit beside an infix is read across the block's edges (the last bits of the block before,
//! the first byte of the block after). Text holding a byte ≥ 0x80 takes `unicode_words`.

use super::split::{for_each_run, gather, Runs, HI, LO};

/// Per byte of eight ASCII bytes (bit j for byte j): the classes the rules use.
struct Classes {
    letter: u64,
    digit: u64,
    core: u64,
    /// `.` `'` `:`, infixes between letters.
    letter_infix: u64,
    /// `.` `,` `;` `'`, infixes between digits.
    digit_infix: u64,
    capital: u64,
}

/// The classes of eight ASCII bytes.
#[inline]
fn classes(x: u64) -> Classes {
    // A byte b < 0x80 plus 0x80 − k has its top bit set when b ≥ k, and never carries.
    let at_least = |k: u8| x.wrapping_add(LO * u64::from(0x80 - k)) & HI;
    let within = |lo: u8, hi: u8| at_least(lo) & !at_least(hi + 1);
    let capital = within(b'A', b'Z');
    let letter = capital | within(b'a', b'z');
    let digit = within(b'0', b'9');
    let (dot, quote) = (within(b'.', b'.'), within(b'\'', b'\''));
    let colon = within(b':', b':');
    let comma_semicolon = within(b',', b',') | within(b';', b';');
    Classes {
        letter: gather(letter),
        digit: gather(digit),
        core: gather(letter | digit | within(b'_', b'_')),
        letter_infix: gather(dot | quote | colon),
        digit_infix: gather(dot | quote | comma_semicolon),
        capital: gather(capital),
    }
}

/// The classes of a 64-byte block, bit j for byte j.
#[inline]
fn block_classes(block: &[u8; 64]) -> Classes {
    let mut all = Classes { letter: 0, digit: 0, core: 0, letter_infix: 0, digit_infix: 0, capital: 0 };
    for (j, eight) in block.chunks_exact(8).enumerate() {
        let mut le = [0u8; 8];
        le.copy_from_slice(eight);
        let c = classes(u64::from_le_bytes(le));
        let at = 8 * j;
        all.letter |= c.letter << at;
        all.digit |= c.digit << at;
        all.core |= c.core << at;
        all.letter_infix |= c.letter_infix << at;
        all.digit_infix |= c.digit_infix << at;
        all.capital |= c.capital << at;
    }
    all
}

/// Calls `f` with each of the first `limit` words of the ASCII string `s` (those of
/// `unicode_words`) and whether it holds a capital.
#[inline]
pub fn for_each_ascii_word<'s>(s: &'s str, limit: usize, f: impl FnMut(&'s str, bool)) {
    debug_assert!(s.is_ascii());
    let bytes = s.as_bytes();
    // The letter and digit bits of the byte before the block.
    let (mut letter_before, mut digit_before) = (0u64, 0u64);
    let masks = |base: usize, block: &[u8; 64]| {
        let c = block_classes(block);
        let after = bytes.get(base + 64).copied().unwrap_or(b' ');
        let prev_letter = (c.letter << 1) | letter_before;
        let prev_digit = (c.digit << 1) | digit_before;
        let next_letter = (c.letter >> 1) | u64::from(after.is_ascii_alphabetic()) << 63;
        let next_digit = (c.digit >> 1) | u64::from(after.is_ascii_digit()) << 63;
        (letter_before, digit_before) = (c.letter >> 63, c.digit >> 63);
        let infix = (c.letter_infix & prev_letter & next_letter) | (c.digit_infix & prev_digit & next_digit);
        Runs { sep: !(c.core | infix), keep: c.letter | c.digit, cased: c.capital }
    };
    for_each_run(s, limit, masks, f);
}

#[cfg(test)]
mod tests {
    use super::for_each_ascii_word;
    use crate::corpus::split::check;
    use unicode_segmentation::UnicodeSegmentation;

    /// The words, each checked for its capital flag.
    fn words(s: &str, limit: usize) -> Vec<&str> {
        let mut out = Vec::new();
        for_each_ascii_word(s, limit, |w, capital| {
            assert_eq!(capital, w.bytes().any(|b| b.is_ascii_uppercase()), "{w:?}");
            out.push(w)
        });
        out
    }

    #[test]
    fn words_are_unicode_words_on_random_ascii_text() {
        // Every ASCII byte appears; the rules' bytes, runs and words across 64-byte blocks
        // appear often; every limit up to past the end.
        let pieces = [
            "a", "Z", "q", "7", "0", "_", ".", "'", ":", ",", ";", " ", "  ", "\r\n", "\r", "\n", "\t", "\"", "-",
            "ab", "e.g.", "1,000", "3.14", "can't", "http://x", "a_b", "__", "x1", "1x", "a.1", "1.a", "a..b", "1;2",
            "1'2",
        ];
        let mut next = check::random(0x2545_F491_4F6C_DD1D);
        for round in 0..4000 {
            let len = next(150);
            let mut text: String = (0..len)
                .map(|_| {
                    if round % 4 == 0 {
                        char::from(next(128) as u8).to_string()
                    } else {
                        pieces[next(pieces.len())].to_string()
                    }
                })
                .collect();
            if round % 3 == 0 {
                text.extend(std::iter::repeat_n('x', (64 - text.len() % 64) % 64));
            }
            check::same_tokens(&text, text.unicode_words().collect(), words, &mut next);
        }
    }

    #[test]
    fn known_cases() {
        assert_eq!(words("The cat's hat, isn't it?", 99), ["The", "cat's", "hat", "isn't", "it"]);
        assert_eq!(words("e.g. 3.14 1,000 a:b __ _x", 99), ["e.g", "3.14", "1,000", "a:b", "_x"]);
        let long = "y".repeat(63);
        assert_eq!(words(&format!("{long}.b"), 9), [format!("{long}.b").as_str()], "an infix across blocks");
        assert_eq!(words(&format!("{long}a.b"), 9), [format!("{long}a.b").as_str()], "a letter across blocks");
        assert_eq!(words(&format!("{long}a."), 9), [format!("{long}a").as_str()], "no letter after");
    }
}
