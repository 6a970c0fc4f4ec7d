//! A byte range of a line-based file (text, JSON Lines) cut at line boundaries, so that
//! several readers can each count a part of one file: the part [start, end) holds the lines
//! that *start* in it. A reader positioned at max(start − 1, 0) skips through the first `\n`
//! (unless start is 0) and stops after the first `\n` at or after end − 1, so consecutive
//! parts hold every line exactly once, in order.

use std::io::Read;

/// The lines starting in [start, end) of a file, from a reader positioned at
/// [`LineRange::read_from`]`(start)`.
pub struct LineRange<R> {
    inner: R,
    /// Absolute position of the next byte `inner` gives.
    pos: u64,
    end: u64,
    /// Still skipping the partial line before `start`.
    skipping: bool,
    /// The next byte starts a line.
    line_start: bool,
    done: bool,
}

impl<R: Read> LineRange<R> {
    /// Where the reader given to [`LineRange::new`] must start: one byte before `start`
    /// (to see whether a line starts exactly at `start`).
    pub fn read_from(start: u64) -> u64 {
        start.saturating_sub(1)
    }

    /// The lines starting in [start, end), reading `inner` from [`LineRange::read_from`].
    pub fn new(inner: R, start: u64, end: u64) -> Self {
        LineRange { inner, pos: Self::read_from(start), end, skipping: start > 0, line_start: true, done: start >= end }
    }
}

impl<R: Read> Read for LineRange<R> {
    /// Reads into `buf`, then keeps in place the bytes of the range: a line's bytes are kept
    /// when the line starts before `end` (found by `memchr`, not byte by byte).
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            let k = self.inner.read(buf)?;
            if k == 0 {
                self.done = true;
                return Ok(0);
            }
            let (at, read) = (self.pos, &buf[..k]);
            self.pos += k as u64;
            // Still skipping the partial line before `start`: through its `\n`.
            let from = match self.skipping {
                true => match memchr::memchr(b'\n', read) {
                    Some(i) => {
                        self.skipping = false;
                        self.line_start = true;
                        i + 1
                    }
                    None => continue,
                },
                false => 0,
            };
            // The first line start at or after `end` ends the range: at `from` when a line
            // starts there, else after the first `\n` at or after end − 1.
            let first_out = usize::try_from(self.end.saturating_sub(at)).unwrap_or(usize::MAX).max(from);
            let stop = match first_out {
                c if c >= k => None,
                c if c == from && self.line_start => Some(c),
                c if c > from && read[c - 1] == b'\n' => Some(c),
                c => memchr::memchr(b'\n', &read[c..]).map(|i| c + i + 1),
            };
            let to = stop.unwrap_or(k);
            self.done = stop.is_some();
            if to > from {
                self.line_start = buf[to - 1] == b'\n';
                buf.copy_within(from..to, 0);
                return Ok(to - from);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Trickle;

    /// Reads `text` as the parts cut at `cuts` and joins them.
    fn parts(text: &[u8], cuts: &[u64], step: usize) -> Vec<Vec<u8>> {
        let mut bounds = vec![0u64];
        bounds.extend_from_slice(cuts);
        bounds.push(text.len() as u64);
        bounds
            .windows(2)
            .map(|w| {
                let from = LineRange::<&[u8]>::read_from(w[0]) as usize;
                // A reader that gives a few bytes at a time, as slices of a file might.
                let mut r = LineRange::new(Trickle { data: &text[from..], step }, w[0], w[1]);
                let mut out = Vec::new();
                r.read_to_end(&mut out).unwrap();
                out
            })
            .collect()
    }

    #[test]
    fn parts_hold_every_line_once_in_order() {
        let text = b"alpha beta\n\ngamma\r\nd\nepsilon zeta eta\nlast line without newline";
        for (a, step) in (0..text.len() as u64).flat_map(|a| (1..=3).map(move |s| (a, s))) {
            for b in a..=text.len() as u64 {
                let p = parts(text, &[a, b], step);
                assert_eq!(p.concat(), text.to_vec(), "cuts {a} {b}, step {step}: {p:?}");
                for (k, part) in p.iter().enumerate() {
                    // Every non-final part ends a line; every part after the first starts one.
                    if !part.is_empty() && k + 1 < p.len() && p[k + 1..].iter().any(|q| !q.is_empty()) {
                        assert_eq!(part.last(), Some(&b'\n'), "cuts {a} {b}: part {k}");
                    }
                }
            }
        }
    }
}
