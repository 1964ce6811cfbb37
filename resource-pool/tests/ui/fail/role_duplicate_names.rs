use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake_case")]
enum MyRole {
    RefPolicy,
    #[role(rename = "ref_policy")]
    Reference,
}

fn main() {}
