import NotFound from "./(app)/not-found";

export default function RootNotFound() {
  return (
    <main className="mx-auto max-w-2xl px-4 py-16">
      <NotFound />
    </main>
  );
}
