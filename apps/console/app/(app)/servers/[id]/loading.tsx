import { Skeleton } from "@/components/ui/skeleton";

export default function Loading() {
  return (
    <div className="grid gap-6" role="status" aria-busy="true" aria-label="Loading">
      <Skeleton className="h-32 w-full" />
      <Skeleton className="h-8 w-64" />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2 2xl:grid-cols-3">
        {Array.from({ length: 6 }, (_, index) => `placeholder-${index}`).map((key) => (
          <Skeleton key={key} className="h-60" />
        ))}
      </div>
    </div>
  );
}
