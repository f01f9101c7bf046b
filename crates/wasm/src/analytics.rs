//! The analytics behind the panel's charts, as numbers (wasm32 only): `retention`,
//! `enumDistribution` and `dateLabels` on [`Engine`] (`engagement` and `streakHistogram` are in
//! the crate root). The page draws them with the chart module (`crates/wasm-charts`,
//! `pkg/bitlens_charts.js`), which holds plotters; this module holds none:
//!
//! ```js
//! // in the worker (engine-client.js):
//! const e = await eng.call('engagement', keys);   // {labels, dau, wau, mau, stickiness}
//! const r = await eng.call('retention', keys, 7, 7); // {labels, rows: [[size, d+1, …], …]}
//! // on the page (pkg/bitlens_charts.js initialised):
//! const c = dauChart(e.labels, e.dau, e.wau, e.mau, 'Daily actives', style);
//! ```

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::{set, throw, Engine, IntoJs};
use bitlens::analytics::windows::DayBitmaps;
use bitlens::analytics::{self, enums};

fn numbers(v: &[u64]) -> Array {
    v.iter().map(|&n| JsValue::from_f64(n as f64)).collect()
}

fn labels_of(keys: &[String]) -> Array {
    keys.iter()
        .map(|k| JsValue::from_str(&analytics::date_label(k.as_bytes())))
        .collect()
}

#[wasm_bindgen]
impl Engine {
    /// `BITLENS.RETENTION lookback horizon keys…` as numbers: `{labels, rows}`, one row per
    /// cohort day: `[cohort size, back on d+1, …, back on d+horizon]`, `null` past the last
    /// key; `labels` are the cohort days' dates (`YYYY-MM-DD` from the key's digits).
    pub fn retention(
        &self,
        keys: Vec<String>,
        lookback: u32,
        horizon: u32,
    ) -> Result<Object, JsError> {
        let rows = DayBitmaps::load(self.ks(), &keys)
            .or_throw()?
            .retention(lookback as usize, horizon as usize);
        let labels: Array = rows
            .iter()
            .map(|r| JsValue::from_str(&analytics::date_label(keys[r.day].as_bytes())))
            .collect();
        let out: Array = rows
            .iter()
            .map(|r| {
                let row = Array::new();
                row.push(&JsValue::from_f64(r.size as f64));
                for v in &r.returned {
                    row.push(&v.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64)));
                }
                JsValue::from(row)
            })
            .collect();
        let obj = Object::new();
        set(&obj, "labels", &labels)?;
        set(&obj, "rows", &out)?;
        Ok(obj)
    }

    /// `BITLENS.ENUMDIST key u<width> [AMONG among]`: the `2^width` counts of the `u<width>`
    /// BITFIELD values in `key`, over the users set in bitmap `among` when given, else over
    /// every field. Throws when `key` does not exist (`no key …`) or `width` is not in 1..=16.
    #[wasm_bindgen(js_name = enumDistribution)]
    pub fn enum_distribution(
        &self,
        key: &str,
        width: u32,
        among: Option<String>,
    ) -> Result<Array, JsError> {
        if !(1..=16).contains(&width) {
            return Err(throw("field width must be 1..16"));
        }
        if self.ks().get(key.as_bytes()).is_none() {
            return Err(throw(format!("no key {key:?}")));
        }
        let bytes = analytics::bitmap(self.ks(), key.as_bytes()).or_throw()?;
        let hist = match &among {
            Some(a) => {
                let m = analytics::bitmap(self.ks(), a.as_bytes()).or_throw()?;
                enums::distribution_among(&bytes, width, &m)
            }
            None => enums::distribution(&bytes, width, None),
        };
        Ok(numbers(&hist))
    }

    /// The date labels (`YYYY-MM-DD`, from each key's trailing digits) of daily `keys`.
    #[wasm_bindgen(js_name = dateLabels)]
    pub fn date_labels(&self, keys: Vec<String>) -> Array {
        labels_of(&keys)
    }
}
