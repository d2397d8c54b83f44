import { OrderPage } from "@/components/order/order-page";

export const metadata = { title: "Call order" };

export default function Page() {
  return <OrderPage />;
}
