//! The compact keyspace (issue 31) against a reference model: random inserts, replacements,
//! removals, in-session string writes and expiries on a [`Keyspace`] and on a plain `HashMap`
//! of the same entries, compared after every step (lookups) and at checkpoints (iteration,
//! counts at a clock, a clone, a drain). Keys range from empty to past the key arena's
//! own-chunk size (64 KiB); strings straddle the inline limit ([`INLINE_BYTES`]). Enough
//! removals run to make the key arena compact itself several times.
//!
//! Randomized: prints `BITLENS_SEED=…`; replay with that variable set.

use std::collections::HashMap;

use bitlens::keyspace::{Keyspace, Value};
use bitlens::string::{RedisString, INLINE_BYTES};

type Model = HashMap<Vec<u8>, (Vec<u8>, bool, Option<i64>)>;

fn random_key(rng: &mut fastrand::Rng) -> Vec<u8> {
    match rng.u8(..20) {
        0 => Vec::new(),
        // 16 big keys (one of 4 bytes × one of 4 lengths, about the own-chunk size), met
        // again and again: their removals fill the arena with dead bytes, so it compacts.
        1 => vec![b'a' + rng.u8(..4); 50_000 + 30_000 * rng.usize(..4)],
        2..=5 => (0..rng.usize(1..300)).map(|_| rng.u8(..)).collect(),
        // Mostly short keys from a small space, so that replacements and removals hit.
        _ => format!("k:{}", rng.u32(..3_000)).into_bytes(),
    }
}

fn random_value(rng: &mut fastrand::Rng) -> Vec<u8> {
    let len = match rng.u8(..4) {
        0 => rng.usize(..=INLINE_BYTES + 2),
        1 => rng.usize(INLINE_BYTES - 2..=INLINE_BYTES + 2),
        2 => rng.usize(..200),
        _ => rng.usize(..5_000),
    };
    (0..len).map(|_| rng.u8(..)).collect()
}

fn string_of(v: &Value) -> (Vec<u8>, bool) {
    match v {
        Value::String(s) => (s.as_bytes().into_owned(), s.rewritten()),
        other => panic!("not a string: {:?}", other.redis_type()),
    }
}

/// Compares everything the keyspace exposes with the model at `clock`.
fn check(ks: &Keyspace, model: &Model, clock: Option<i64>, step: usize) {
    let alive = |e: &Option<i64>| match (e, clock) {
        (Some(when), Some(now)) => now <= *when,
        _ => true,
    };
    assert_eq!(
        ks.len(),
        model.values().filter(|(_, _, e)| alive(e)).count(),
        "len at step {step}"
    );
    let mut seen = 0;
    for (k, e) in ks.iter_all() {
        let (bytes, rewritten, exp) = model
            .get(k)
            .unwrap_or_else(|| panic!("extra key at step {step}"));
        assert_eq!(
            string_of(e.value),
            (bytes.clone(), *rewritten),
            "value at step {step}"
        );
        assert_eq!(e.expire_at_ms, *exp, "expiry at step {step}");
        seen += 1;
    }
    assert_eq!(seen, model.len(), "iter_all count at step {step}");
    assert_eq!(ks.iter().count(), ks.len(), "iter count at step {step}");
    for (k, (_, _, exp)) in model {
        assert!(ks.entry_any(k).is_some(), "entry_any at step {step}");
        assert_eq!(ks.get(k).is_some(), alive(exp), "get at step {step}");
    }
}

#[test]
fn keyspace_matches_a_plain_map() {
    let seed = bitlens_testseed::seed();
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut ks = Keyspace::with_capacity(rng.u64(..2_000));
    let mut model: Model = HashMap::new();
    let now = 1_000_000i64;
    let clock = Some(now);
    ks.set_clock(clock);
    let steps = 6_000;
    for step in 0..steps {
        let key = random_key(&mut rng);
        match rng.u8(..10) {
            0..=3 => {
                let v = random_value(&mut rng);
                let exp = rng.bool().then(|| rng.i64(990_000..1_010_000));
                ks.insert(
                    key.clone(),
                    Value::String(RedisString::from_bytes(v.clone())),
                    exp,
                );
                model.insert(key, (v, false, exp));
            }
            4 => {
                let v = random_value(&mut rng);
                let got = ks.insert_new(&key, Value::String(RedisString::from_slice(&v)), None);
                assert_eq!(
                    got.is_ok(),
                    !model.contains_key(&key),
                    "insert_new at step {step}"
                );
                model.entry(key).or_insert((v, false, None));
            }
            5..=6 => {
                let was_alive = model.get(&key).is_some_and(|(_, _, e)| match e {
                    Some(when) => now <= *when,
                    None => true,
                });
                assert_eq!(ks.remove(&key), was_alive, "remove at step {step}");
                model.remove(&key);
            }
            7 => {
                // An in-session write (SETBIT) moves an inline string to the heap.
                let offset = rng.u64(..400);
                if let Some(Value::String(s)) = ks.get_mut(&key) {
                    s.set_bit(offset, true);
                    s.mark_rewritten();
                    let m = model.get_mut(&key).expect("alive in the model");
                    let byte = (offset / 8) as usize;
                    if m.0.len() <= byte {
                        m.0.resize(byte + 1, 0);
                    }
                    m.0[byte] |= 0x80 >> (offset % 8);
                    m.1 = true;
                } else {
                    assert!(
                        model
                            .get(&key)
                            .is_none_or(|(_, _, e)| e.is_some_and(|w| w < now)),
                        "get_mut missed a live key at step {step}"
                    );
                }
            }
            _ => {
                let got = ks.get(&key).map(string_of);
                let want = model
                    .get(&key)
                    .and_then(|(b, r, e)| e.is_none_or(|w| w >= now).then(|| (b.clone(), *r)));
                assert_eq!(got, want, "get at step {step}");
            }
        }
        if step % 500 == 499 {
            check(&ks, &model, clock, step);
        }
    }
    check(&ks, &model, clock, steps);
    let copy = ks.clone();
    check(&copy, &model, clock, steps);
    // Everything removed: the arena compacts, the table empties.
    let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
    for k in &keys {
        ks.remove(k);
    }
    assert_eq!(ks.iter_all().count(), 0);
    let mut drained: Model = copy
        .clone()
        .drain()
        .map(|(k, e)| {
            let (b, r) = string_of(&e.value);
            (k, (b, r, e.expire_at_ms))
        })
        .collect();
    assert_eq!(drained.len(), model.len());
    drained.retain(|k, v| model.get(k) != Some(v));
    assert!(drained.is_empty(), "drain gave other entries");
}
