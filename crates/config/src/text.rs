//! Terminal text: what an error line may show of user input.

/// `message` with its line breaks and runs of white space made single
/// spaces and every other control character escaped
/// ([`escape_controls`]), so that an error quoting it stays on one line
/// and cannot drive a terminal.
pub fn one_line(message: &str) -> String {
    escape_controls(&message.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `text` with every control character escaped (`\n`, `\u{1b}`, ...), so
/// that it stays one line and cannot drive a terminal.
pub fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
