use resource_pool::Role;

#[derive(Role, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MyRole<T> {
    Actor,
    Critic,
    #[doc(hidden)]
    _Marker(std::marker::PhantomData<T>),
}

fn main() {}
