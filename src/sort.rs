//! Sorting through one copy of the standard library's sort, for sorts off the hot paths.
//!
//! Every `slice::sort_by` / `sort_unstable_by` call on a new element type or comparator
//! instantiates the whole sort (driftsort or ipnsort, 3 to 18 KB of wasm each; issue 15's
//! bundle budget). [`sort_by`] and [`sort_by_key`] instead sort a permutation of indices
//! with a `dyn` comparator, which is instantiated once, and then move the elements into
//! that order. The sort is stable (equal elements keep their order), so it may replace
//! `sort_by`, and `sort_unstable_by` wherever equal elements cannot be told apart. It costs
//! an indirect call per comparison and two `Vec`s of the slice's length: keep the hot
//! paths (loading, GEOSEARCH, SCAN) on the standard sorts.

use std::cmp::Ordering;

/// The indices `0..n` in the stable order `cmp` (comparing two indices) gives.
fn order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    sort_indices(&mut idx, cmp);
    idx
}

/// The one instantiation of the standard stable sort behind this module.
fn sort_indices(idx: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    idx.sort_by(|&a, &b| cmp(a, b));
}

/// Sorts `v` by `cmp`, stably (as `slice::sort_by`).
pub fn sort_by<T>(v: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let s: &[T] = v;
    let idx = order(s.len(), &mut |a, b| cmp(&s[a], &s[b]));
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(idx.iter().filter_map(|&i| slots[i].take()));
}

/// The indices of the `n` first elements of `0..len` in the stable order `cmp` (comparing
/// two indices) gives, in that order: the `n` smallest, as a selection
/// (`select_nth_unstable_by`, O(len)) then a sort of those `n`, both instantiated once.
pub fn first_n(len: usize, n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    // Ties are broken by index, so the selection keeps what a stable sort would keep.
    let mut by = |a: usize, b: usize| cmp(a, b).then(a.cmp(&b));
    let mut idx: Vec<usize> = (0..len).collect();
    if n < idx.len() {
        idx.select_nth_unstable_by(n, |&a, &b| by(a, b));
        idx.truncate(n);
    }
    sort_indices(&mut idx, &mut by);
    idx
}

/// Sorts `v` by the key `f` gives, stably (as `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_order_as_the_standard_stable_sort() {
        let mut rng = fastrand::Rng::with_seed(15);
        for n in [0usize, 1, 2, 3, 17, 100, 1000] {
            let v: Vec<(u8, u32)> = (0..n as u32).map(|i| (rng.u8(0..8), i)).collect();
            let mut want = v.clone();
            want.sort_by_key(|e| e.0);
            let mut got = v.clone();
            sort_by_key(&mut got, |e| e.0);
            assert_eq!(got, want, "n = {n}");
            let mut got = v.clone();
            sort_by(&mut got, |a, b| b.0.cmp(&a.0));
            want.sort_by_key(|e| std::cmp::Reverse(e.0));
            assert_eq!(got, want, "n = {n} (descending)");
            // The first k of the stable descending order, for k below, at and above n.
            for k in [0, 1, n / 2, n, n + 3] {
                let got: Vec<(u8, u32)> = first_n(n, k, &mut |a, b| v[b].0.cmp(&v[a].0))
                    .into_iter()
                    .map(|i| v[i])
                    .collect();
                assert_eq!(got, want[..k.min(n)], "n = {n}, first {k}");
            }
        }
        // Non-Copy elements are moved, not cloned.
        let mut s = vec![b"b".to_vec(), b"a".to_vec(), b"c".to_vec()];
        sort_by(&mut s, |a, b| a.cmp(b));
        assert_eq!(s, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    }
}
