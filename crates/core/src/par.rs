//! **Data parallelism that does not change a bit.** Work is cut into a fixed number of
//! pieces that depends on the input only (never on the number of threads); natively the
//! pieces run on every core (rayon, the pool faer already uses), in wasm one after another.
//! Results come back in piece order, so every sum over them combines the same partial sums in
//! the same order on every machine — the page and the CLI report the same bits. (Where
//! the pieces only split disjoint outputs, each computed the same way whatever the split,
//! their number may follow the threads: see the chord's outer products in `metric`.)

/// `f(0), f(1), …, f(count − 1)`, in that order, computed in parallel natively.
pub fn map<T: Send>(count: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        (0..count).into_par_iter().map(f).collect()
    }
    #[cfg(target_arch = "wasm32")]
    {
        (0..count).map(f).collect()
    }
}

/// Runs `f` on every run of consecutive elements of `v` that `same` joins (as
/// `chunk_by_mut`), in parallel natively. Each run is its own piece, so the result does not
/// depend on the threads.
pub fn for_each_group<T: Send>(
    v: &mut [T],
    same: impl Fn(&T, &T) -> bool + Sync + Send,
    f: impl Fn(&mut [T]) + Sync + Send,
) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        v.par_chunk_by_mut(same).for_each(f);
    }
    #[cfg(target_arch = "wasm32")]
    {
        v.chunk_by_mut(same).for_each(f);
    }
}

/// Runs `f` on each of `pieces` (each its own piece, in parallel natively).
pub fn for_each<T: Send>(pieces: Vec<T>, f: impl Fn(T) + Sync + Send) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use rayon::prelude::*;
        pieces.into_par_iter().for_each(f);
    }
    #[cfg(target_arch = "wasm32")]
    {
        pieces.into_iter().for_each(f);
    }
}

/// Threads the pieces run on: every core natively, one in wasm.
pub fn threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        rayon::current_num_threads()
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_group_is_visited_once() {
        let mut v: Vec<u32> = (0..10_000u32).map(|k| (k / 7) * 100 + (k * 37) % 7).collect();
        super::for_each_group(&mut v, |a, b| a / 100 == b / 100, |g| g.sort_unstable());
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "each group sorted, groups in order");
    }

    #[test]
    fn results_come_back_in_order() {
        let v = super::map(1000, |k| k * k);
        assert!(v.iter().enumerate().all(|(k, &x)| x == k * k));
    }
}
