use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_all = snake_case)]
enum MyRole {
    Actor,
    #[role(rename = 3)]
    Critic,
}

fn main() {}
