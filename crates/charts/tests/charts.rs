//! Each chart rendered to SVG on the host (plotters needs a DOM to measure text on wasm32) and
//! checked for what the data implies: one line per series with one point per day, one bar per
//! non-zero count with heights in proportion, one heatmap cell per known retention value with
//! its percentage, axis labels with dates and counts.
//! Set `BITLENS_CHART_DIR=/some/dir` to also write the SVGs there for a look.

use bitlens::analytics::daily::{self, CohortRow};
use bitlens::analytics::{date_label, enums};
use bitlens_charts::{self as chart, BAR_COLOR, DAU_COLOR, MAU_COLOR, WAU_COLOR};
use plotters::style::RGBColor;

fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

fn save(name: &str, svg: &str) {
    if let Ok(dir) = std::env::var("BITLENS_CHART_DIR") {
        std::fs::write(format!("{dir}/{name}.svg"), svg).unwrap();
    }
}

/// Elements `<tag ...>` of the SVG whose attributes contain `needle`.
fn elements<'a>(svg: &'a str, tag: &str, needle: &str) -> Vec<&'a str> {
    svg.split('<')
        .filter(|e| e.starts_with(tag) && e.contains(needle))
        .collect()
}

fn attr(el: &str, name: &str) -> f64 {
    let key = format!(" {name}=\"");
    let start = el.find(&key).unwrap_or_else(|| panic!("{name} in {el}")) + key.len();
    let end = start + el[start..].find('"').unwrap();
    el[start..end].parse().unwrap()
}

use bitlens_charts::svg_texts as texts;

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(0x9E3779B97F4A7C15);
    x ^ (x >> 29)
}

/// Deterministic daily bitmaps: user u joins on some day, stays a while (skipping about one day
/// in eight) and leaves, so that streaks, rolling windows and cohorts all differ.
fn days(n: usize, users: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|d| {
            let mut b = vec![0u8; users.div_ceil(8)];
            for u in 0..users {
                let h = mix(u as u64 + 1);
                let join = (h % (n as u64 + 5)) as usize;
                let stay = 1 + ((h >> 16) % (n as u64)) as usize;
                let skip = mix(h ^ ((d as u64 + 1) * 0x1000193)).is_multiple_of(8);
                if d >= join && d < join + stay && !skip {
                    b[u / 8] |= 0x80 >> (u % 8);
                }
            }
            b
        })
        .collect()
}

fn labels(n: usize) -> Vec<String> {
    (0..n)
        .map(|d| date_label(format!("stats:active:202405{:02}", d + 1).as_bytes()))
        .collect()
}

#[test]
fn dau_chart_has_three_dated_lines() {
    let keys = days(30, 4000);
    let e = daily::engagement(&keys);
    let svg = chart::dau_svg("Daily actives", &labels(30), &e, 900, 400).unwrap();
    save("dau", &svg);
    for (color, series) in [
        (DAU_COLOR, &e.dau),
        (WAU_COLOR, &e.wau),
        (MAU_COLOR, &e.mau),
    ] {
        let lines = elements(&svg, "polyline", &format!("stroke=\"{}\"", hex(color)));
        // The series line (one point per day) and its legend sample (two points).
        let points: Vec<usize> = lines
            .iter()
            .map(|l| {
                l.split("points=\"")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .filter(|p| p.contains(','))
                    .count()
            })
            .collect();
        assert!(points.contains(&series.len()), "{points:?}");
        // Higher counts are drawn higher (smaller SVG y) in the series line.
        let line = lines
            .iter()
            .find(|l| l.matches(',').count() == series.len())
            .unwrap();
        let ys: Vec<f64> = line
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .split(' ')
            .filter(|p| !p.is_empty())
            .map(|p| p.split(',').nth(1).unwrap().parse().unwrap())
            .collect();
        let (lo, hi) = (0..series.len()).fold((0, 0), |(lo, hi), i| {
            (
                if series[i] < series[lo] { i } else { lo },
                if series[i] > series[hi] { i } else { hi },
            )
        });
        if series[lo] < series[hi] {
            assert!(ys[hi] < ys[lo]);
        }
    }
    let t = texts(&svg);
    for want in [
        "Daily actives",
        "DAU",
        "7-day actives",
        "30-day actives",
        "2024-05-01",
        "users",
        "day",
    ] {
        assert!(t.iter().any(|x| x == want), "missing text {want}: {t:?}");
    }
    // Some y label is at least the largest 30-day count, in the compact count format.
    let top = *e.mau.iter().max().unwrap();
    assert!(
        t.iter()
            .any(|x| x.parse::<u64>().is_ok_and(|v| v >= top * 9 / 10)),
        "{t:?}"
    );
}

#[test]
fn streak_histogram_bars_follow_counts() {
    let keys = days(14, 6000);
    let hist = daily::streak_histogram(&keys);
    assert!(hist.iter().filter(|&&c| c > 0).count() >= 3, "{hist:?}");
    let svg = chart::streak_histogram_svg("Current streaks", &hist, 800, 400).unwrap();
    save("streaks", &svg);
    let bars = elements(&svg, "rect", &format!("fill=\"{}\"", hex(BAR_COLOR)));
    let nonzero: Vec<u64> = hist.iter().copied().filter(|&c| c > 0).collect();
    assert_eq!(bars.len(), nonzero.len());
    // Bar heights are proportional to the counts (within a pixel of rounding).
    let heights: Vec<f64> = bars.iter().map(|b| attr(b, "height")).collect();
    let scale = heights[0] / nonzero[0] as f64;
    for (h, &c) in heights.iter().zip(&nonzero) {
        assert!(
            (h - c as f64 * scale).abs() <= 1.5,
            "{heights:?} vs {nonzero:?}"
        );
    }
    let t = texts(&svg);
    for want in [
        "Current streaks",
        "streak length (days)",
        "users",
        "1",
        "14",
    ] {
        assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
    }
}

#[test]
fn retention_heatmap_cells_and_percentages() {
    let keys = days(12, 3000);
    let rows: Vec<CohortRow> = daily::retention(&keys, 3, 5);
    let row_labels: Vec<String> = rows.iter().map(|r| labels(12)[r.day].clone()).collect();
    let svg = chart::retention_svg("Retention", &row_labels, &rows, 900, 500).unwrap();
    save("retention", &svg);
    let known: Vec<(u64, u64)> = rows
        .iter()
        .flat_map(|r| r.returned.iter().flatten().map(move |&v| (v, r.size)))
        .collect();
    // 9 cohorts (days 3..=11) × 5 days, minus the days past the last key (5+4+3+2+1).
    assert_eq!(known.len(), 9 * 5 - 15);
    let heat = |v: u64, s: u64| {
        hex(chart::heat_color(if s == 0 {
            0.0
        } else {
            v as f64 / s as f64
        }))
    };
    let cells: usize = known
        .iter()
        .map(|&(v, s)| heat(v, s))
        .collect::<std::collections::BTreeSet<_>>()
        .iter()
        .map(|c| elements(&svg, "rect", &format!("fill=\"{c}\"")).len())
        .sum();
    assert_eq!(cells, known.len());
    let t = texts(&svg);
    for &(v, s) in &known {
        let p = chart::retention_percent(v, s);
        assert!(t.contains(&p), "missing {p}");
    }
    let cell_texts = t.iter().filter(|x| x.ends_with('%')).count();
    assert_eq!(cell_texts, known.len());
    let first = format!(
        "{} (n={})",
        row_labels[0],
        chart::format_count(rows[0].size)
    );
    for want in ["Retention", "+1", "+5", first.as_str(), "cohort"] {
        assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
    }
}

#[test]
fn enum_distribution_bars() {
    // u4 levels for 2000 users, value = user id mod 7 for active ones, written as BITFIELD does.
    let mut fields = vec![0u8; 1000];
    for u in 0..2000usize {
        let v = (u % 7) as u8;
        fields[u / 2] |= if u % 2 == 0 { v << 4 } else { v };
    }
    let hist = enums::distribution(&fields, 4, None);
    assert_eq!(hist.len(), 16);
    let svg = chart::enum_distribution_svg("Levels", &hist, 700, 380).unwrap();
    save("levels", &svg);
    let bars = elements(&svg, "rect", &format!("fill=\"{}\"", hex(BAR_COLOR)));
    assert_eq!(bars.len(), 7);
    let t = texts(&svg);
    for want in ["Levels", "value", "0", "6"] {
        assert!(t.iter().any(|x| x == want), "missing {want}: {t:?}");
    }
    // Values above the largest present (7..15) get no axis label.
    assert!(!t.iter().any(|x| x == "7" || x == "15"), "{t:?}");
}

#[test]
fn degenerate_data_still_draws() {
    let e = daily::engagement::<Vec<u8>>(&[]);
    let svg = chart::dau_svg("Nothing", &[], &e, 600, 300).unwrap();
    assert!(texts(&svg).iter().any(|x| x == "Nothing"));
    let svg = chart::streak_histogram_svg("None", &[], 600, 300).unwrap();
    assert!(elements(&svg, "rect", &hex(BAR_COLOR)).is_empty());
    let svg = chart::retention_svg("R", &[], &[], 600, 300).unwrap();
    assert!(texts(&svg).iter().any(|x| x == "R"));
    assert!(chart::dau_svg("x", &["a".into()], &e, 600, 300).is_err());
    // One bar, one cohort with one day.
    let svg = chart::streak_histogram_svg("One", &[5], 600, 300).unwrap();
    assert_eq!(elements(&svg, "rect", &hex(BAR_COLOR)).len(), 1);
    let rows = vec![CohortRow {
        day: 1,
        size: 4,
        returned: vec![Some(1)],
    }];
    let svg = chart::retention_svg("R1", &["d".into()], &rows, 600, 300).unwrap();
    assert!(texts(&svg).iter().any(|x| x == "25%"));
    let e = daily::engagement(&[vec![0xffu8]]);
    let svg = chart::dau_svg("D1", &["2024-05-01".into()], &e, 600, 300).unwrap();
    assert!(texts(&svg).iter().any(|x| x == "2024-05-01"));
}

#[test]
fn nearby_map_draws_circle_centre_and_every_point() {
    // Five shops east of a centre in Shanghai, 3 km radius; the first two are "on the page".
    let centre = (121.4737, 31.2304);
    let points: Vec<(f64, f64)> = (1..=5)
        .map(|i| (centre.0 + i as f64 * 0.005, centre.1))
        .collect();
    let q = chart::Nearby {
        centre,
        radius_m: 3000.0,
        points: &points,
        highlight: 2,
    };
    let map = chart::nearby_chart("Nearby", &q, 480, 480, &Default::default()).unwrap();
    let svg = map.svg;
    // One point per shop, left to right (each further east), at the centre's height.
    let xs: Vec<i32> = map.drawn.points.iter().map(|p| p.x).collect();
    assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
    // Two highlighted dots (radius 4) and three others (radius 2).
    assert_eq!(svg.matches("r=\"4\"").count(), 2, "{svg}");
    assert_eq!(svg.matches("r=\"2\"").count(), 3);
    assert!(svg.contains("<polyline"), "radius circle");
    assert!(svg.contains("km east") && svg.contains("km north"));
    let zero = chart::Nearby { radius_m: 0.0, ..q };
    assert!(chart::nearby_chart("x", &zero, 100, 100, &Default::default()).is_err());
}

#[test]
fn retention_axis_title_clear_of_row_labels() {
    // Big cohorts give long row labels ("2024-05-01 (n=1,234,567)"): the rotated axis title
    // must sit left of where the longest label starts.
    let rows: Vec<CohortRow> = (0..3)
        .map(|d| CohortRow {
            day: d,
            size: 1_234_567,
            returned: vec![Some(600_000), Some(500_000)],
        })
        .collect();
    let row_labels: Vec<String> = rows.iter().map(|r| labels(3)[r.day].clone()).collect();
    let svg = chart::retention_svg("Retention", &row_labels, &rows, 900, 500).unwrap();
    save("retention-long-labels", &svg);
    // (x, font size) of each <text> element whose trimmed content is `want`.
    let text_at = |want: &str| -> Vec<(f64, f64)> {
        svg.split("<text")
            .skip(1)
            .filter(|t| {
                let body = &t[t.find('>').unwrap() + 1..];
                body[..body.find("</text>").unwrap()].trim() == want
            })
            .map(|t| {
                let attr = |name: &str| -> f64 {
                    let i = t.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                    t[i..i + t[i..].find('"').unwrap()].parse().unwrap()
                };
                (attr("x"), attr("font-size"))
            })
            .collect()
    };
    let title = text_at("cohort");
    assert_eq!(title.len(), 1);
    let label = format!("{} (n={})", row_labels[0], chart::format_count(1_234_567));
    let at = text_at(&label);
    assert_eq!(at.len(), 1);
    // Positions are the same on every backend, but the browser canvas draws fonts at their
    // nominal size (labels 14 px, axis title 15 px) where the SVG backend scales them down:
    // check with the canvas sizes. Labels end at the axis (text-anchor end); a DejaVu Sans
    // digit is 0.636 em wide.
    let (x, _) = at[0];
    let label_start = x - label.chars().count() as f64 * 14.0 * 0.64;
    // The title is rotated by 270° and shifted 0.76 em: its glyphs span x .. x + 1 em.
    let (tx, _) = title[0];
    assert!(
        tx + 15.0 < label_start,
        "title spans x={tx}..{}, label starts at {label_start}",
        tx + 15.0
    );
}
