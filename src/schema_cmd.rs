//! `resource-pool schema config|cluster`: the JSON Schema of a file format on stdout, for
//! editors that check TOML against a schema (taplo, Even Better TOML).

use resource_pool::json_schema::{cluster_schema, config_schema};

use super::{Context, Outcome, Roles, print_json};

/// Arguments of `schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// The file format.
    #[arg(value_enum)]
    format: FileFormat,
    /// The role names offered as `[mapping]` keys (other names are allowed either way).
    #[arg(long, value_enum, default_value_t = Roles::Verl)]
    roles: Roles,
}

/// The file formats there are schemas of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FileFormat {
    /// Config files: `[pools.*]` and `[mapping]`.
    Config,
    /// Cluster files: `[[nodes]]`.
    Cluster,
}

/// Prints the schema as JSON on stdout.
pub fn run(args: &SchemaArgs, context: &Context) -> Outcome {
    let schema = match args.format {
        FileFormat::Config => config_schema(&context.lint_options(args.roles).roles),
        FileFormat::Cluster => cluster_schema(),
    };
    print_json(&schema);
    Outcome::Ok
}
