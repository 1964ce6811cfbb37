use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[role(rename_al = "snake_case")]
enum MyRole {
    Actor,
    #[role(renmae = "critic")]
    Critic,
}

fn main() {}
