use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename = "actor")]
enum MyRole {
    Actor,
    #[role(rename_all = "snake_case")]
    Critic,
}

fn main() {}
