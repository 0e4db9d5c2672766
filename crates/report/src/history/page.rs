//! The page of `tranche history --html`: per series its table and one
//! plot per headline figure over the results in date order (a line per
//! layout or grid point, the report crate's plotters charts), each step
//! `compare` calls a regression marked by a vertical line named after its
//! commit. Self-contained: inline SVG, no script, no external resource.

use super::table::{heading, series_table};
use super::Series;
use crate::html::escape;
use crate::html_chart::{line_chart_named, Line, LineChart};
use anyhow::Result;
use tranche_config::text::counted;

/// Each result's name on the x axis: its commit (12 digits) and day.
fn x_names(s: &Series) -> Vec<String> {
    s.points
        .iter()
        .map(|p| {
            let commit = tranche_config::text::bare(p.commit.get(..12).unwrap_or(&p.commit));
            format!("{commit} {}", p.date.get(..10).unwrap_or(&p.date))
        })
        .collect()
}

/// The plots of one series.
fn plots(s: &Series) -> Result<String> {
    let mut out = String::new();
    let x = |i: usize| (i + 1) as f64;
    for (f, (figure, _)) in s.figures().iter().enumerate() {
        let mut lines: Vec<Line> = Vec::new();
        for (i, p) in s.points.iter().enumerate() {
            for line in &p.lines {
                let Some(y) = line.values.get(f).copied().flatten() else {
                    continue;
                };
                match lines.iter_mut().find(|l| l.name == line.label) {
                    Some(l) => l.points.push((x(i), y)),
                    None => lines.push(Line {
                        name: line.label.clone(),
                        layout: line.label.clone(),
                        points: vec![(x(i), y)],
                    }),
                }
            }
        }
        if lines.is_empty() {
            continue;
        }
        let top = lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let marks: Vec<Line> = s
            .points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.step.is_regression())
            .map(|(i, p)| Line {
                name: format!(
                    "regression at #{} ({})",
                    i + 1,
                    p.commit.get(..12).unwrap_or(&p.commit)
                ),
                layout: String::new(),
                points: vec![(x(i), 0.0), (x(i), top)],
            })
            .collect();
        let chart = LineChart {
            title: figure,
            x_desc: "commit and date (meta.date), in date order",
            y_desc: figure,
            y_from_data: false,
        };
        out.push_str(&line_chart_named(&chart, &lines, &marks, &x_names(s))?);
        out.push('\n');
    }
    Ok(out)
}

/// Largest page written: past it, series keep their tables but lose their
/// plots, and a note says how many (10 000 results of as many
/// configurations would otherwise make a page of hundreds of MB).
pub const MAX_PAGE_BYTES: usize = 32 << 20;

/// The page.
pub fn render(series: &[Series], skipped: &[String], command: &str) -> Result<String> {
    let mut body = String::new();
    let mut unplotted = 0;
    for s in series {
        body.push_str(&format!(
            "<h2>{}</h2>\n<pre>{}</pre>\n",
            escape(&heading(s)),
            escape(&series_table(s)),
        ));
        if body.len() < MAX_PAGE_BYTES {
            body.push_str(&plots(s)?);
        } else {
            unplotted += 1;
        }
    }
    let mut notes: String = skipped
        .iter()
        .map(|l| format!("<p>note: {}</p>\n", escape(l)))
        .collect();
    // Why series of one name are followed apart, as the text says.
    for line in super::apart(series) {
        notes.push_str(&format!("<p>not comparable: {}</p>\n", escape(&line)));
    }
    if unplotted > 0 {
        notes.push_str(&format!(
            "<p>note: the plots of {} {} left out: the page reached its \
             limit of {} MiB (name fewer results)</p>\n",
            counted(unplotted, "series"),
            if unplotted == 1 { "is" } else { "are" },
            MAX_PAGE_BYTES >> 20
        ));
    }
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tranche history</title>\n\
         <style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}pre{{font-size:13px;overflow-x:auto}}\
         svg{{max-width:100%;height:auto}}</style></head><body>\n\
         <h1>tranche history</h1>\n<pre>commit: {}\ncommand: {}</pre>\n{body}{notes}</body></html>\n",
        escape(crate::meta::COMMIT),
        escape(command),
    ))
}
