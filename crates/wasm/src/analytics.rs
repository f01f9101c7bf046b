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

use tsify::Ts;
use wasm_bindgen::prelude::*;

use crate::types::{result, Retention};
use crate::{throw, Engine, IntoJs};
use bitlens::analytics::windows::DayBitmaps;
use bitlens::analytics::{self, enums};

/// The date labels of daily keys ([`analytics::date_label`] of each).
pub(crate) fn labels_of(keys: &[String]) -> Vec<String> {
    keys.iter()
        .map(|k| analytics::date_label(k.as_bytes()))
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
    ) -> Result<Ts<Retention>, JsError> {
        let rows = DayBitmaps::load(self.ks(), &keys)
            .or_throw()?
            .retention(lookback as usize, horizon as usize);
        let labels = rows
            .iter()
            .map(|r| analytics::date_label(keys[r.day].as_bytes()))
            .collect();
        let rows = rows
            .iter()
            .map(|r| {
                let back = r.returned.iter().map(|v| v.map(|n| n as f64));
                std::iter::once(Some(r.size as f64)).chain(back).collect()
            })
            .collect();
        result(&Retention { labels, rows })
    }

    /// `BITLENS.ENUMDIST key u<width> [AMONG among]`: the `2^width` counts of the `u<width>`
    /// BITFIELD values in `key`, over the users set in bitmap `among` when given, else over
    /// every field. Throws when `key` does not exist (`no key …`) or `width` is not in 1..=16.
    #[wasm_bindgen(js_name = enumDistribution, unchecked_return_type = "number[]")]
    pub fn enum_distribution(
        &self,
        key: &str,
        width: u32,
        among: Option<String>,
    ) -> Result<js_sys::Array, JsError> {
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
        // An array of numbers (`number[]`), as the chart module's `enumChart` takes it.
        Ok(hist.iter().map(|&n| JsValue::from_f64(n as f64)).collect())
    }

    /// The date labels (`YYYY-MM-DD`, from each key's trailing digits) of daily `keys`.
    #[wasm_bindgen(js_name = dateLabels)]
    pub fn date_labels(&self, keys: Vec<String>) -> Vec<String> {
        labels_of(&keys)
    }
}
