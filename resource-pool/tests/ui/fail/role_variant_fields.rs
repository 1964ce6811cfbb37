use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MyRole {
    Actor,
    Critic(u32),
    RewardModel { gpus: u32 },
}

fn main() {}
