use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = "snake-case")]
enum MyRole {
    Actor,
    Critic,
}

fn main() {}
