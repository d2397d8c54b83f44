import { OrderPage } from "@/components/order/order-page";

export default function Page() {
  return <OrderPage />;
}
