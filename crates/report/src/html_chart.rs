//! The plots of the HTML reports: grouped bars per block slot with
//! reference lines (`html.rs`: the slot length, the crypto floors) and
//! lines against a numeric x (`tranche sweep run`'s scaling plots), drawn
//! as inline SVG by plotters' SVG backend, one fixed colour per layout,
//! the title and the legend inside the SVG, the legend in a strip beside
//! the data, never over it; counts get integer ticks only.

use anyhow::{anyhow, Result};
use plotters::prelude::*;

const WIDTH: u32 = 760;
const HEIGHT: u32 = 340;
/// Width of the legend strip right of the plot area.
const LEGEND_WIDTH: u32 = 230;

/// The colour of a layout in every plot: classic always blue, the parallel
/// layouts of the page the next colours in order.
pub(crate) fn layout_colour(layout: &str, layouts: &[String]) -> RGBColor {
    const CLASSIC: RGBColor = RGBColor(31, 119, 180);
    const OTHERS: [RGBColor; 5] = [
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
    ];
    if layout == "classic" {
        return CLASSIC;
    }
    let i = layouts
        .iter()
        .filter(|l| l.as_str() != "classic")
        .position(|l| l == layout)
        .unwrap_or(0);
    OTHERS[i % OTHERS.len()]
}

/// The bars of one layout: a value per group (`None`: nothing to draw);
/// `name` is its legend entry.
pub(crate) struct Bars {
    pub name: String,
    pub layout: String,
    pub colour: RGBColor,
    pub values: Vec<Option<f64>>,
}

/// A horizontal reference line (the slot length, a crypto floor), named in
/// the legend.
pub(crate) struct Mark {
    pub y: f64,
    pub label: String,
    pub colour: RGBColor,
}

fn y_top(bars: &[Bars], marks: &[Mark]) -> f64 {
    let hi = bars
        .iter()
        .flat_map(|b| b.values.iter().flatten().copied())
        .chain(marks.iter().map(|m| m.y))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    if hi <= 0.0 {
        1.0
    } else {
        hi * 1.08
    }
}

/// What a bar chart shows: its title, the y axis, the x groups' labels
/// (block numbers, `tail`), and whether the y values are counts (integer
/// ticks only).
pub(crate) struct BarChart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub groups: &'a [String],
    pub integer: bool,
}

/// Grouped bars: one group per x label, one bar per layout in the group,
/// the reference lines across, title and legend inside the SVG.
pub(crate) fn bar_chart(chart: &BarChart<'_>, bars: &[Bars], marks: &[Mark]) -> Result<String> {
    let title = chart.title;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let err = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("cannot draw {title}: {e}");
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        let n = chart.groups.len().max(1);
        let mut top = y_top(bars, marks);
        if chart.integer {
            top = top.ceil().max(1.0);
        }
        let mut c = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(0.5f64..n as f64 + 0.5, 0.0..top)
            .map_err(err)?;
        let labels = chart.groups;
        let y_format = |y: &f64| {
            if (y - y.round()).abs() < 1e-9 {
                format!("{y:.0}")
            } else {
                String::new()
            }
        };
        let x_format = |x: &f64| {
            let i = x.round() as usize;
            if (x - x.round()).abs() < 1e-6 && (1..=labels.len()).contains(&i) {
                labels[i - 1].clone()
            } else {
                String::new()
            }
        };
        let mut mesh = c.configure_mesh();
        mesh.x_labels(n.clamp(2, 25))
            .x_label_formatter(&x_format)
            .x_desc(chart.x_desc)
            .y_desc(chart.y_desc)
            .light_line_style(WHITE.mix(0.0));
        if chart.integer {
            // Counts: a tick per whole number (at most 11), none between.
            mesh.y_labels((top as usize + 1).min(11))
                .y_label_formatter(&y_format);
        }
        mesh.draw().map_err(err)?;
        let width = 0.8 / bars.len().max(1) as f64;
        for (j, b) in bars.iter().enumerate() {
            let colour = b.colour;
            c.draw_series(b.values.iter().enumerate().filter_map(|(i, v)| {
                let v = (*v)?;
                let x0 = i as f64 + 1.0 - 0.4 + j as f64 * width;
                Some(Rectangle::new(
                    [(x0, 0.0), (x0 + width, v)],
                    colour.filled(),
                ))
            }))
            .map_err(err)?;
        }
        for m in marks {
            c.draw_series(std::iter::once(PathElement::new(
                vec![(0.5, m.y), (n as f64 + 0.5, m.y)],
                m.colour.stroke_width(2),
            )))
            .map_err(err)?;
        }
        if bars.iter().all(|b| b.values.iter().all(Option::is_none)) {
            plot.draw(&Text::new(
                "no data in this report",
                ((WIDTH / 2 - 140) as i32, (HEIGHT / 2) as i32),
                ("sans-serif", 15),
            ))
            .map_err(err)?;
        }
        draw_legend(&legend, bars, marks).map_err(err)?;
        root.present().map_err(err)?;
    }
    // Inline SVG in HTML needs no namespace: the page names no URL at all.
    Ok(svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", ""))
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    bars: &[Bars],
    marks: &[Mark],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let mut y = 40;
    for b in bars {
        area.draw(&Rectangle::new([(6, y), (20, y + 12)], b.colour.filled()))?;
        area.draw(&Text::new(b.name.clone(), (26, y), ("sans-serif", 12)))?;
        y += 20;
    }
    for m in marks {
        area.draw(&PathElement::new(
            vec![(4, y + 6), (22, y + 6)],
            m.colour.stroke_width(2),
        ))?;
        area.draw(&Text::new(m.label.clone(), (26, y), ("sans-serif", 12)))?;
        y += 20;
    }
    Ok(())
}

/// One line of a [`line_chart`]: its name (in the legend), the layout
/// whose colour it takes, its points (x, y) in ascending x.
pub struct Line {
    pub name: String,
    pub layout: String,
    pub points: Vec<(f64, f64)>,
}

/// Lines from `(name, layout, point)` triples: one line per name, in the
/// order names first appear, each line's points in ascending x.
pub fn group_lines(points: impl IntoIterator<Item = (String, String, (f64, f64))>) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for (name, layout, point) in points {
        match out.iter_mut().find(|l| l.name == name) {
            Some(l) => l.points.push(point),
            None => out.push(Line {
                name,
                layout,
                points: vec![point],
            }),
        }
    }
    for l in &mut out {
        l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// The x range of a line chart: the data's span with a margin of 5 % on
/// each side (100 to 200 validators: 95 to 205, not 0 to 220).
pub fn x_span(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = xs
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = if hi > lo { (hi - lo) * 0.05 } else { 1.0 };
    (lo - pad, hi + pad)
}

/// A line per series against a numeric x (e.g. validators), each point
/// marked, the legend in the strip beside the data; colours by layout as
/// in every other plot of the reports. The classic layout's line is dashed
/// with hollow markers, so it stays visible where it runs under another;
/// `marks` are horizontal reference lines (e.g. the crypto floor).
pub fn line_chart(title: &str, x_desc: &str, y_desc: &str, lines: &[Line]) -> Result<String> {
    line_chart_with(title, x_desc, y_desc, lines, &[])
}

/// [`line_chart`] with reference lines.
pub fn line_chart_with(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    lines: &[Line],
    marks: &[Line],
) -> Result<String> {
    let layouts: Vec<String> = lines.iter().map(|l| l.layout.clone()).collect();
    let pts = || {
        lines
            .iter()
            .chain(marks)
            .flat_map(|l| l.points.iter().copied())
    };
    let top = |v: f64| if v > 0.0 { v * 1.08 } else { 1.0 };
    let (x_lo, x_hi) = x_span(pts().map(|p| p.0));
    let y_hi = top(pts().map(|p| p.1).fold(0.0, f64::max));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let err = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("cannot draw {title}: {e}");
        root.fill(&WHITE).map_err(err)?;
        let (plot, legend) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
        let mut c = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 17))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x_lo..x_hi, 0.0..y_hi)
            .map_err(err)?;
        c.configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(err)?;
        let mut y = 40;
        for l in lines {
            let colour = layout_colour(&l.layout, &layouts);
            if l.layout == "classic" {
                c.draw_series(DashedLineSeries::new(
                    l.points.iter().copied(),
                    8,
                    5,
                    colour.stroke_width(2),
                ))
                .map_err(err)?;
                c.draw_series(
                    l.points
                        .iter()
                        .map(|p| Circle::new(*p, 5, colour.stroke_width(2))),
                )
                .map_err(err)?;
            } else {
                c.draw_series(LineSeries::new(
                    l.points.iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(err)?;
                c.draw_series(l.points.iter().map(|p| Circle::new(*p, 3, colour.filled())))
                    .map_err(err)?;
            }
            legend
                .draw(&Rectangle::new([(6, y), (20, y + 12)], colour.filled()))
                .map_err(err)?;
            legend
                .draw(&Text::new(l.name.clone(), (26, y), ("sans-serif", 13)))
                .map_err(err)?;
            y += 20;
        }
        for m in marks {
            c.draw_series(LineSeries::new(
                m.points.iter().copied(),
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
            legend
                .draw(&PathElement::new(
                    vec![(6, y + 6), (20, y + 6)],
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?;
            legend
                .draw(&Text::new(m.name.clone(), (26, y), ("sans-serif", 13)))
                .map_err(err)?;
            y += 20;
        }
        root.present().map_err(err)?;
    }
    Ok(svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_x_axis_spans_the_data() {
        assert_eq!(x_span([100.0, 200.0].into_iter()), (95.0, 205.0));
        assert_eq!(x_span([20.0].into_iter()), (19.0, 21.0));
        assert_eq!(x_span(std::iter::empty()), (0.0, 1.0));
    }
}
