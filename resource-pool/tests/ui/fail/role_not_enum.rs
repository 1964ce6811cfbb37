use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MyRole {
    actor: bool,
}

fn main() {}
