use super::*;

fn alibi(n: usize, m: f64) -> Points {
    Points::from_fn(n, 1, |i, _| m * i as f64)
}

/// Both ways of computing an iteration: every rule test runs on each.
type Solver = fn(&Points, &DistanceMatrix, usize, f64, &mut dyn FnMut(f64)) -> SmacofFit;
const SOLVERS: [(&str, Solver); 2] = [("one worker", smacof_one_worker), ("by rows", smacof)];

fn sigma(x: &Points, target: &DistanceMatrix) -> f64 {
    raw_sum(x.distances().as_slice(), target) / target.upper().iter().map(|v| v * v).sum::<f64>()
}

#[test]
fn smacof_never_increases_raw_stress() {
    // A non-Euclidean target: SMACOF from a poor 1-D start must improve it.
    let target = DistanceMatrix::from_fn(5, |i, j| 1.0 + ((i * 7 + j * 3) % 5) as f64 * 0.1);
    let start = alibi(5, 0.3);
    let fit = smacof(&start, &target, 500, 1e-12, &mut |_| {});
    assert!(fit.iterations > 0 && sigma(&fit.points, &target) < sigma(&start, &target));
}

#[test]
fn it_stops_after_the_first_step_below_the_tolerance() {
    // Replaying the iterations one cap at a time: the run stops at the first k whose step
    // lowered σ by less than 1e-6, and every earlier step lowered it by at least that.
    for ((n, seed, d), (name, smacof)) in
        [(12, 1usize, 2), (30, 2, 3)].into_iter().flat_map(|c| SOLVERS.map(|s| (c, s)))
    {
        let target = DistanceMatrix::from_fn(n, |i, j| 1.0 + ((i * 7 + j * 3 + seed * (i + j)) % 11) as f64 * 0.05);
        let start = crate::mds::Spectrum::of_distances(&target).expect("spectrum").coordinates(d);
        let fit = smacof(&start, &target, 20_000, SMACOF_TOL, &mut |_| {});
        assert_eq!(fit.stop, SmacofStop::Tolerance, "{name}, n = {n}");
        // The iteration depends on X alone, so single steps chained replay the run.
        let mut xs = vec![start.clone()];
        for _ in 0..fit.iterations {
            let next = smacof(&xs[xs.len() - 1], &target, 1, 0.0, &mut |_| {}).points;
            xs.push(next);
        }
        let at: Vec<f64> = xs.iter().map(|x| sigma(x, &target)).collect();
        let k = fit.iterations;
        assert!(k >= 2, "{name}, n = {n}: {k} iterations");
        assert!(at[k - 1] - at[k] < SMACOF_TOL, "{name}, n = {n}: the last step is below the tolerance");
        for j in 1..k {
            assert!(at[j - 1] - at[j] >= SMACOF_TOL, "{name}, n = {n}: step {j} was already below it");
        }
        assert_eq!(sigma(&fit.points, &target), at[k]);
    }
}

#[test]
fn the_cap_and_an_exact_start_are_reported() {
    for (name, smacof) in SOLVERS {
        cap_and_exact(name, smacof);
    }
}

fn cap_and_exact(name: &str, smacof: Solver) {
    let target = DistanceMatrix::from_fn(12, |i, j| 1.0 + ((i * 7 + j * 3 + i + j) % 11) as f64 * 0.05);
    let start = crate::mds::Spectrum::of_distances(&target).expect("spectrum").coordinates(2);
    let capped = smacof(&start, &target, 1, SMACOF_TOL, &mut |_| {});
    assert_eq!((capped.iterations, capped.stop), (1, SmacofStop::Cap), "{name}");
    let none = smacof(&start, &target, 0, SMACOF_TOL, &mut |_| {});
    assert_eq!((none.iterations, none.stop, &none.points), (0, SmacofStop::Cap, &start), "{name}");
    // Points on a line are their own exact configuration: nothing to iterate.
    let line = alibi(6, 1.0);
    let exact = smacof(&line, &line.distances(), 500, SMACOF_TOL, &mut |_| {});
    assert_eq!((exact.iterations, exact.stop), (0, SmacofStop::Tolerance), "{name}");
}

/// A deterministic pseudo-random number in [0, 1) for case k.
fn unit(k: usize) -> f64 {
    ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64
}

#[test]
fn the_parts_of_the_blocks_make_the_whole_iteration() {
    // Against the definitions, entry by entry: δ directly, B(X) and (1/n)·B·X by loops, for
    // parts of one block, of several, and the blocks cut between parts in different ways.
    let (n, dim) = (37, 4);
    let x = Points::from_fn(n, dim, |i, k| unit(i * dim + k) - 0.5);
    let target = DistanceMatrix::from_fn(n, |i, j| 0.5 + unit(1000 + i.min(j) * n + i.max(j)));
    let norms = rows::norms(&x);
    let mut want = Vec::new();
    for i in 0..n {
        let b: Vec<f64> = (0..n).map(|j| if j == i { 0.0 } else { -target.get(i, j) / x.direct(i, j) }).collect();
        let bii = -b.iter().sum::<f64>();
        for k in 0..dim {
            want.push((0..n).map(|j| if j == i { bii } else { b[j] } * x.row(j)[k]).sum::<f64>() / n as f64);
        }
    }
    let stress: f64 = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| (x.direct(i, j) - target.get(i, j)).powi(2))
        .sum();
    for blocks in [1, 2, 5, 37] {
        let plan = RowPlan::with_rows(n, n.div_ceil(blocks));
        for cuts in [vec![0, plan.len()], vec![0, 1, plan.len()], (0..=plan.len()).collect()] {
            let parts: Vec<_> =
                cuts.windows(2).map(|w| rows::part_of(&x, &norms, &target, &plan, w[0]..w[1], true)).collect();
            let (got_stress, next) = rows::combine(&x, &parts);
            let next = next.expect("every part stepped");
            for (q, (got, want)) in next.data.iter().zip(&want).enumerate() {
                assert!((got - want).abs() < 1e-13, "{blocks} blocks, cuts {cuts:?}: entry {q}: {got} against {want}");
            }
            assert!((got_stress - stress).abs() < 1e-12 * stress, "{blocks} blocks, cuts {cuts:?}");
        }
    }
    // No step asked for: σ's shares alone.
    let plan = RowPlan::new(n);
    let part = rows::part_of(&x, &norms, &target, &plan, 0..1, false);
    assert!(part.sums.is_empty() && part.row_sums.is_empty() && part.stresses[0] > 0.0);
    assert_eq!(rows::combine(&x, &[part]).1, None);
}

#[test]
fn shares_cover_the_blocks_and_balance_the_triangle() {
    for n in [20, 300, 1024, 4096] {
        let plan = RowPlan::new(n);
        for k in 1..=4.min(plan.len()) {
            let shares = plan.shares(k);
            assert_eq!(shares.len(), k);
            assert_eq!(shares[0].start, 0);
            assert_eq!(shares[k - 1].end, plan.len());
            assert!(shares.windows(2).all(|w| w[0].end == w[1].start) && shares.iter().all(|s| !s.is_empty()));
            // Each share's pairs (its rows × the rows from its first on) within one block's of
            // an equal share.
            let cost = |s: &std::ops::Range<usize>| {
                s.clone().map(|b| plan.block(b).len() * (n - plan.block(b).start)).sum::<usize>()
            };
            let (total, biggest) = (cost(&(0..plan.len())), plan.block(0).len() * n);
            assert!(shares.iter().all(|s| cost(s).abs_diff(total / k) <= biggest), "n = {n}, k = {k}: {shares:?}");
        }
    }
}

#[test]
fn the_blocks_cover_every_row_once() {
    for n in [1, 2, 15, 16, 17, 100, 513, 1024, 4096, 5000, 70_000] {
        let plan = RowPlan::new(n);
        let mut at = 0;
        for b in 0..plan.len() {
            let r = plan.block(b);
            assert_eq!(r.start, at, "n = {n}: block {b} starts where the last ended");
            assert!(!r.is_empty(), "n = {n}: block {b} is empty");
            at = r.end;
        }
        assert_eq!(at, n, "n = {n}: the blocks end at n");
        assert_eq!(plan.span(0..plan.len()), 0..n);
        assert!(plan.len() <= n.max(1) && (n < 256 || plan.len() >= 16), "n = {n}: {} blocks", plan.len());
    }
}

#[test]
fn by_rows_follows_the_one_worker_loop() {
    // Non-Euclidean targets, PMDS starts: the same iterations, the same stop, the same
    // configuration up to round-off.
    for (n, d, seed) in [(40, 3, 1usize), (70, 5, 2), (130, 2, 3)] {
        let target = DistanceMatrix::from_fn(n, |i, j| 0.3 + unit(seed * 100_000 + i.min(j) * n + i.max(j)));
        let start = crate::mds::Spectrum::of_distances(&target).expect("spectrum").coordinates(d);
        let one = smacof_one_worker(&start, &target, 500, SMACOF_TOL, &mut |_| {});
        let mut seen = Vec::new();
        let rows = smacof(&start, &target, 500, SMACOF_TOL, &mut |f| seen.push(f));
        assert_eq!((one.iterations, one.stop), (rows.iterations, rows.stop), "n = {n}");
        assert!(one.iterations >= 2, "n = {n}: {} iterations", one.iterations);
        let gap = one.points.data.iter().zip(&rows.points.data).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(gap < 1e-10, "n = {n}: coordinates differ by {gap}");
        assert!((sigma(&one.points, &target) - sigma(&rows.points, &target)).abs() < 1e-13, "n = {n}");
        assert!(seen.windows(2).all(|w| w[0] <= w[1]) && seen.last() == Some(&(one.iterations as f64 / 500.0)));
    }
}
