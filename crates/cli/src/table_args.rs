//! Command-line flags derived from the option tables of `posgeo::options`: one clap argument
//! per declared option (its flag, help, default and choices come from the declaration), and
//! the parsed matches written back through the same declarations.

use clap::builder::PossibleValue;
use clap::{Arg, ArgAction, ArgMatches, Command};
use posgeo::options::{Domain, OptSpec};

/// Adds one argument per option of `table` (tristates get `--x` and `--no-x`).
pub fn augment<T>(mut cmd: Command, table: &'static [OptSpec<T>], defaults: &T) -> Command {
    for o in table {
        let default = o.text(defaults);
        let help = match (o.domain, default.as_str()) {
            (Domain::OptInt { empty, .. }, "") => format!("{} [default: {empty}]", o.help),
            (Domain::Switch | Domain::Tristate, _) => o.help.to_string(),
            _ => format!("{} [default: {default}]", o.help),
        };
        let arg = Arg::new(o.name).long(o.flag).help(help);
        cmd = match o.domain {
            Domain::Switch => cmd.arg(arg.action(ArgAction::SetTrue)),
            Domain::Tristate => {
                let no = no_flag(o.flag);
                cmd.arg(arg.action(ArgAction::SetTrue).conflicts_with(no))
                    .arg(Arg::new(no).long(no).action(ArgAction::SetTrue).help(format!("the opposite of --{}", o.flag)))
            }
            Domain::Choice(choices) => cmd.arg(arg.value_parser(
                choices.iter().map(|c| PossibleValue::new(c.cli).alias(c.value).help(c.label)).collect::<Vec<_>>(),
            )),
            _ => cmd.arg(arg.allow_negative_numbers(true)),
        };
    }
    cmd
}

/// `--no-<flag>` (leaked once per tristate option: clap wants `'static` names).
fn no_flag(flag: &'static str) -> &'static str {
    Box::leak(format!("no-{flag}").into_boxed_str())
}

/// Writes every option given on the command line into `target` (defaults stay as they are).
pub fn apply<T>(table: &'static [OptSpec<T>], m: &ArgMatches, target: &mut T) -> Result<(), String> {
    for o in table {
        let text = match o.domain {
            Domain::Switch => m.get_flag(o.name).then(|| "true".to_string()),
            Domain::Tristate => {
                let no = format!("no-{}", o.flag);
                if m.get_flag(&no) {
                    Some("false".into())
                } else {
                    m.get_flag(o.name).then(|| "true".into())
                }
            }
            _ => m.get_one::<String>(o.name).cloned(),
        };
        if let Some(t) = text {
            o.apply(target, &t).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
