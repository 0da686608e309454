/** Which catalog events this installation can raise: @appliance/notify-routing's `ObservedEvents`. */
export { ObservedEvents, type RaisedEventDecl } from '@appliance/notify-routing';
