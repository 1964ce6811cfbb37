use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MyRole {}

fn main() {}
