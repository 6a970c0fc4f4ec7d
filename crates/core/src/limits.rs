//! **Size limits**, checked before allocating: a file's declared sizes (an `.npy` shape, a
//! safetensors header, a gzip stream's expansion) and a job's working memory are compared
//! with the file and with a memory budget, so an oversized or lying file gets a message
//! about size instead of an out-of-memory trap or a misleading parse error.
//!
//! The budget is 1.5 GiB in the browser (a wasm32 tab's memory is at most 4 GiB, and the
//! page holds the file too) and 16 GiB natively — or, natively, half the address-space limit
//! when one is set lower (`ulimit -v`, as on shared clusters): the rest of the address space
//! goes to what the estimates leave out (threads' stacks and allocator arenas, the matrix
//! products' packing buffers, the encodings measured side by side), and the threads are
//! then as many as that half holds ([`fit_threads_to_cap`]). [`budget`] is the one to
//! compare with.

use crate::error::{PosgeoError, Result};

/// The budget where no address-space limit lowers it ([`budget`]).
#[cfg(target_arch = "wasm32")]
pub const MEMORY_BUDGET: u64 = 3 << 29;
/// The budget where no address-space limit lowers it ([`budget`]).
#[cfg(not(target_arch = "wasm32"))]
pub const MEMORY_BUDGET: u64 = 16 << 30;

/// Bytes one allocation (or one job's working set) may take: [`MEMORY_BUDGET`], or natively
/// half the process's address-space limit when that is lower (module docs).
pub fn budget() -> u64 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        address_space_cap().map_or(MEMORY_BUDGET, |cap| MEMORY_BUDGET.min(cap / 2))
    }
    #[cfg(target_arch = "wasm32")]
    MEMORY_BUDGET
}

/// The process's soft address-space limit in bytes, if one is set (read once).
#[cfg(not(target_arch = "wasm32"))]
fn address_space_cap() -> Option<u64> {
    static CAP: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| std::fs::read_to_string("/proc/self/limits").ok().and_then(|t| address_space_limit(&t)))
}

/// Address space a computing thread reserves beyond the estimates: its matrix products'
/// packing buffers (64 MiB), its allocator arena (64 MiB) and its stack.
#[cfg(not(target_arch = "wasm32"))]
const PER_THREAD: u64 = 160 << 20;

/// Natively, under an address-space limit: the most computing threads the half of it left
/// beside the budget holds ([`PER_THREAD`] each), so a many-core machine does not run out of
/// address space in its threads' reservations (`None`: no limit).
#[cfg(not(target_arch = "wasm32"))]
pub fn threads_within_cap() -> Option<usize> {
    address_space_cap().map(threads_for)
}

/// The computing threads half of an address-space limit of `cap` bytes holds (at least one).
#[cfg(not(target_arch = "wasm32"))]
fn threads_for(cap: u64) -> usize {
    usize::try_from((cap / 2) / PER_THREAD).unwrap_or(usize::MAX).max(1)
}

/// Natively, under an address-space limit and unless `RAYON_NUM_THREADS` says otherwise:
/// the thread pool every core's work runs on is made with at most [`threads_within_cap`]
/// threads. Call it before any parallel work (the CLI's and the Python module's start); a
/// pool already made is left as it is.
#[cfg(not(target_arch = "wasm32"))]
pub fn fit_threads_to_cap() {
    let Some(most) = threads_within_cap() else { return };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if most < cores && std::env::var_os("RAYON_NUM_THREADS").is_none() {
        rayon::ThreadPoolBuilder::new().num_threads(most).build_global().ok();
    }
}

/// A budget of `b` bytes as a message states it: its size, and why when it is the budget an
/// address-space limit set.
pub(crate) fn budget_text(b: u64) -> String {
    if b == budget() && b < MEMORY_BUDGET && cfg!(not(target_arch = "wasm32")) {
        format!("{} (half the address-space limit, `ulimit -v`)", human(b))
    } else {
        human(b)
    }
}

/// The soft address-space limit in bytes from the text of `/proc/self/limits` (`None`:
/// unlimited or not found).
#[cfg(any(not(target_arch = "wasm32"), test))]
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find_map(|l| l.strip_prefix("Max address space"))?;
    line.split_whitespace().next()?.parse().ok()
}

/// A byte count for people: "1.5 GB", "80 TB".
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = bytes as f64;
    let mut k = 0;
    while v >= 1000.0 && k + 1 < units.len() {
        v /= 1000.0;
        k += 1;
    }
    if k == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", units[k])
    }
}

/// Fails when `what` would need more than the budget.
pub fn check(what: &str, bytes: u64) -> Result<()> {
    if bytes > budget() {
        return Err(PosgeoError::TooLarge(format!(
            "{what} would need {}, more than the memory budget of {}",
            human(bytes),
            budget_text(budget())
        )));
    }
    Ok(())
}

/// Approximate peak bytes of the numeric stages for n positions and model dimension d, in
/// n×n f64 matrices: D, the eigenvectors and D's prepared pairs and ranks stay resident (3);
/// the eigen-step adds B and the solver's work (2); measuring one encoding adds its δ, its
/// pairs, their sort and ranks (3) — no encoding keeps its δ (see [`crate::measures::sketch`]) —, plus
/// the encodings' n×d tables. Natively the encodings are measured side by side, but the
/// native budget is ten times the tab's.
pub fn working_memory(n: usize, d: usize) -> u64 {
    let (n, d) = (n as u64, d as u64);
    8u64.saturating_mul(
        6u64.saturating_mul(n.saturating_mul(n)).saturating_add(4u64.saturating_mul(n.saturating_mul(d))),
    )
}

/// Fails, before any n×n matrix is allocated, when n positions at model dimension d would
/// need more than the budget; the message gives the estimate and the largest max_len that fits.
pub fn check_positions(n: usize, d: usize) -> Result<()> {
    let need = working_memory(n, d);
    if need > budget() {
        return Err(PosgeoError::TooLarge(format!(
            "the analysis of n = {n} positions at d = {d} would need about {} for its n×n matrices, more than the memory budget of {}: set max_len to at most {} (or lower d)",
            human(need),
            budget_text(budget()),
            largest_n(d)
        )));
    }
    Ok(())
}

/// The largest number of positions whose [`working_memory`] at model dimension d fits the
/// budget (what a refusal suggests as max_len).
pub fn largest_n(d: usize) -> usize {
    let (mut lo, mut hi) = (1usize, 1usize << 20);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if working_memory(mid, d) <= budget() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// `a × b × c` or `None` on overflow.
pub fn product(factors: &[u64]) -> Option<u64> {
    factors.iter().try_fold(1u64, |acc, &f| acc.checked_mul(f))
}

/// Reserves room for `extra` more bytes in `buf`, or says how much was asked for.
pub fn reserve(buf: &mut Vec<u8>, extra: usize, what: &str) -> Result<()> {
    buf.try_reserve(extra).map_err(|_| {
        PosgeoError::TooLarge(format!("{what}: could not allocate {} more (out of memory)", human(extra as u64)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human(999), "999 bytes");
        assert_eq!(human(1_500_000), "1.5 MB");
        assert_eq!(human(80_000_000_000_000), "80.0 TB");
        assert!(check("x", budget()).is_ok());
        let e = check("the table", budget() + 1).unwrap_err().to_string();
        assert!(e.contains("the table would need") && e.contains("memory budget"), "{e}");
        assert_eq!(product(&[u64::MAX, 2]), None);
        assert_eq!(product(&[3, 4, 5]), Some(60));
    }

    #[test]
    fn the_largest_n_is_the_edge_of_the_budget() {
        for d in [1, 768, 4096] {
            let n = largest_n(d);
            assert!(working_memory(n, d) <= budget() && working_memory(n + 1, d) > budget(), "d = {d}");
        }
        let e = check_positions(largest_n(768) + 1, 768).unwrap_err().to_string();
        assert!(e.contains(&format!("max_len to at most {}", largest_n(768))), "{e}");
        // n = 4096 positions at the default d = 768 fit the tab's budget too.
        assert!(working_memory(4096, 768) <= 3 << 29);
    }

    #[test]
    fn the_address_space_limit_is_read_from_proc_self_limits() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max stack size            8388608              unlimited            bytes     \n\
                      Max address space         3072000000           unlimited            bytes     \n";
        assert_eq!(address_space_limit(limits), Some(3_072_000_000));
        assert_eq!(address_space_limit(&limits.replace("3072000000", "unlimited")), None);
        assert_eq!(address_space_limit("Max stack size 8388608 unlimited bytes"), None);
        assert!(budget() <= MEMORY_BUDGET);
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))]
    fn the_threads_fit_the_other_half_of_the_limit() {
        // `ulimit -v 3000000`: 1.536 GB left beside the budget, 160 MiB a thread.
        assert_eq!(threads_for(3_072_000_000), 9);
        assert_eq!(threads_for(100 << 20), 1);
    }
}
