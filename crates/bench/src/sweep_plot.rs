//! The line charts of `tranche sweep run`'s page, as inline SVG written by
//! hand: one line per series, points marked, axes from zero to the largest
//! value with five ticks, the legend to the right of the plot. No script,
//! no external resource.

use std::fmt::Write as _;

/// Colours of the series, in order (reused past the sixth).
const COLOURS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];

const W: f64 = 560.0;
const H: f64 = 300.0;
/// Margins: left (y labels), right (legend), top, bottom (x labels).
const ML: f64 = 70.0;
const MR: f64 = 190.0;
const MT: f64 = 15.0;
const MB: f64 = 45.0;

use tranche_report::html::escape as esc;

/// A chart of `series` (name, points (x, y)); `x_label` and `y_label`
/// name the axes.
pub fn line_chart(series: &[(String, Vec<(f64, f64)>)], x_label: &str, y_label: &str) -> String {
    let pts = series.iter().flat_map(|(_, p)| p.iter());
    let (x_max, y_max) = pts.fold((0.0f64, 0.0f64), |(x, y), p| (x.max(p.0), y.max(p.1)));
    let (x_max, y_max) = (x_max.max(1.0), if y_max > 0.0 { y_max * 1.1 } else { 1.0 });
    let px = |x: f64| ML + x / x_max * (W - ML - MR);
    let py = |y: f64| H - MB - y / y_max * (H - MT - MB);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">"#
    );
    let _ = write!(
        s,
        r##"<line x1="{ML}" y1="{b}" x2="{r}" y2="{b}" stroke="#000"/><line x1="{ML}" y1="{MT}" x2="{ML}" y2="{b}" stroke="#000"/>"##,
        b = H - MB,
        r = W - MR
    );
    for i in 0..=4 {
        let f = f64::from(i) / 4.0;
        let (x, y) = (px(f * x_max), py(f * y_max));
        let _ = write!(
            s,
            r##"<text x="{x:.1}" y="{ty:.1}" text-anchor="middle">{xv:.0}</text><text x="{tx:.1}" y="{yy:.1}" text-anchor="end">{yv:.3}</text><line x1="{ML}" y1="{y:.1}" x2="{r}" y2="{y:.1}" stroke="#ddd"/>"##,
            ty = H - MB + 15.0,
            xv = f * x_max,
            tx = ML - 5.0,
            yy = y + 4.0,
            yv = f * y_max,
            r = W - MR
        );
    }
    let _ = write!(
        s,
        r#"<text x="{cx:.1}" y="{ly:.1}" text-anchor="middle">{}</text><text x="15" y="{cy:.1}" text-anchor="middle" transform="rotate(-90 15 {cy:.1})">{}</text>"#,
        esc(x_label),
        esc(y_label),
        cx = (ML + W - MR) / 2.0,
        ly = H - 8.0,
        cy = (MT + H - MB) / 2.0
    );
    for (i, (name, points)) in series.iter().enumerate() {
        let c = COLOURS[i % COLOURS.len()];
        let path: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = write!(
            s,
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            path.join(" ")
        );
        for (x, y) in points {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"><title>{}: {x} validators, {y:.3}</title></circle>"#,
                px(*x),
                py(*y),
                esc(name)
            );
        }
        let ly = MT + 15.0 * i as f64 + 10.0;
        let _ = write!(
            s,
            r#"<rect x="{lx}" y="{ry:.1}" width="12" height="3" fill="{c}"/><text x="{tx}" y="{ty:.1}">{}</text>"#,
            esc(name),
            lx = W - MR + 15.0,
            ry = ly - 4.0,
            tx = W - MR + 32.0,
            ty = ly
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_polyline_and_legend_entry_per_series_and_a_point_each() {
        let svg = line_chart(
            &[
                ("classic fifo".into(), vec![(20.0, 1.0), (40.0, 2.5)]),
                ("parallel/4 fifo".into(), vec![(20.0, 0.5), (40.0, 1.0)]),
            ],
            "validators",
            "CPU <s>",
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains(">classic fifo</text>"));
        assert!(svg.contains("CPU &lt;s&gt;"), "labels are escaped");
        // The largest value is inside the plot area.
        assert!(!svg.contains("NaN"));
    }
}
